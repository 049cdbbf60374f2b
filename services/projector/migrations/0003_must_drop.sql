-- Must-drop pools (docs/jackpot.md "Must-drop pools"): each cycle's commitment, each drop's reveal, the kind and
-- commitment on the meters, and the transfer terms of a movement (reserve taken in, overflow sent on, and a
-- decommissioning's balance), so opening + contributions + seeds + transferred_in - paid - transferred_out = closing
-- holds row by row here too.
CREATE TABLE pool_commitments (
    event_id       uuid        PRIMARY KEY,
    pool_id        text        NOT NULL,
    network_id     text        NOT NULL,
    kind           text        NOT NULL,
    cycle          bigint      NOT NULL,
    commitment     text        NOT NULL,
    ceiling_micro  bigint      NOT NULL,
    window_start   timestamptz,
    window_end     timestamptz,
    recorded_at    timestamptz NOT NULL,
    broker_time    timestamptz NOT NULL
);
CREATE INDEX pool_commitments_pool ON pool_commitments (pool_id, cycle);

CREATE TABLE pool_drops (
    event_id         uuid        PRIMARY KEY,
    pool_id          text        NOT NULL,
    network_id       text        NOT NULL,
    kind             text        NOT NULL,
    cycle            bigint      NOT NULL,
    commitment       text        NOT NULL,
    drop_value       bigint      NOT NULL,
    salt             text        NOT NULL,
    claim_id         uuid        NOT NULL,
    contribution_id  uuid        NOT NULL,
    level_micro      bigint      NOT NULL,
    recorded_at      timestamptz NOT NULL,
    broker_time      timestamptz NOT NULL
);
CREATE INDEX pool_drops_pool ON pool_drops (pool_id, cycle);

ALTER TABLE pool_movements ADD COLUMN transferred_in_micro bigint NOT NULL DEFAULT 0;
ALTER TABLE pool_movements ADD COLUMN transferred_out_micro bigint NOT NULL DEFAULT 0;
ALTER TABLE meters ADD COLUMN kind text NOT NULL DEFAULT 'random';
ALTER TABLE meters ADD COLUMN ceiling_minor bigint;
ALTER TABLE meters ADD COLUMN commitment text;
