-- jackpot.events administrative facts: pool-opened, pool-status-changed, pool-command-rejected (data kept whole).
-- Their movements (an opening seed, a decommissioning transfer) go to pool_movements with kind opened | status-changed;
-- a status change carries no currency, so pool_movements.currency and pools.currency may be NULL from here on.
CREATE TABLE pool_admin (
    event_id     uuid        PRIMARY KEY,
    type         text        NOT NULL,
    pool_id      text        NOT NULL,
    network_id   text        NOT NULL,
    data         jsonb       NOT NULL,
    recorded_at  timestamptz NOT NULL,
    broker_time  timestamptz NOT NULL
);
CREATE INDEX pool_admin_pool ON pool_admin (pool_id, recorded_at);
ALTER TABLE pool_movements ALTER COLUMN currency DROP NOT NULL;
ALTER TABLE pools ALTER COLUMN currency DROP NOT NULL;
