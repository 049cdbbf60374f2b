-- reelstream projection v1: the history people query, folded from every event topic.
-- Applied with search_path set to one physical schema (proj_<timestamp>); read it through the `projection` views.
-- Money: *_minor in minor units (cent, øre), *_micro in micro-units (1 minor = 1,000,000 micro).

-- The consumer position of this schema: written in the same transaction as the rows it produced.
CREATE TABLE positions (
    topic        text    NOT NULL,  -- real topic name (with the deployment's prefix)
    partition    integer NOT NULL,
    next_offset  bigint  NOT NULL,  -- the next offset to read
    PRIMARY KEY (topic, partition)
);

-- Every projected event once (the de-duplication key of the whole projection is the CloudEvents id).
CREATE TABLE events (
    event_id      uuid        PRIMARY KEY,
    type          text        NOT NULL,
    source        text        NOT NULL,
    subject       text        NOT NULL,
    event_time    timestamptz NOT NULL,  -- CloudEvents `time`
    topic         text        NOT NULL,  -- where it was first projected from
    partition     integer     NOT NULL,
    "offset"      bigint      NOT NULL,
    broker_time   timestamptz NOT NULL,  -- the record's LogAppendTime
    correlationid text,
    causationid   text
);
CREATE INDEX events_subject_time ON events (subject, broker_time);

-- spin.events: reelstream.spin.settled.v1
CREATE TABLE spins (
    event_id             uuid        PRIMARY KEY,
    request_id           uuid        NOT NULL,
    player_id            text        NOT NULL,
    game                 text        NOT NULL,
    currency             text        NOT NULL,
    operator_id          text,
    stake_minor          bigint      NOT NULL,
    win_minor            bigint      NOT NULL,
    house_win_minor      bigint      NOT NULL,
    jackpot_win_minor    bigint      NOT NULL,
    breakage_micro       bigint      NOT NULL,
    contribution_micro   bigint      NOT NULL,
    balance_after_minor  bigint      NOT NULL,
    model_version        text        NOT NULL,
    seed                 text        NOT NULL,
    state_before         jsonb       NOT NULL,
    state_after          jsonb       NOT NULL,
    outcome              jsonb       NOT NULL,
    jackpot_awards       jsonb       NOT NULL,  -- array of {claim_id, network_id, pool_id, tier, amount_minor, share_ppm}
    settled_at           timestamptz NOT NULL,
    broker_time          timestamptz NOT NULL
);
CREATE INDEX spins_player_time ON spins (player_id, settled_at DESC);
CREATE INDEX spins_request ON spins (request_id);

-- spin.events: reelstream.spin.rejected.v1
CREATE TABLE spin_rejections (
    event_id     uuid        PRIMARY KEY,
    request_id   uuid,
    player_id    text        NOT NULL,
    code         text        NOT NULL,
    message      text        NOT NULL,
    game         text,
    stake_minor  bigint,
    broker_time  timestamptz NOT NULL
);
CREATE INDEX spin_rejections_player ON spin_rejections (player_id, broker_time);

-- spin.journal: reelstream.spin.seed-drawn.v1, reelstream.spin.bonus-ring-forfeited.v1 (and later journal types)
CREATE TABLE spin_journal (
    event_id     uuid        PRIMARY KEY,
    type         text        NOT NULL,
    request_id   uuid,
    player_id    text        NOT NULL,
    game         text,
    data         jsonb       NOT NULL,  -- the whole CloudEvents `data`
    broker_time  timestamptz NOT NULL
);
CREATE INDEX spin_journal_request ON spin_journal (request_id);

-- wallet.events with postings: deposited, withdrawn, wager-debited, wager-settled, wager-refunded
CREATE TABLE wallet_transactions (
    event_id             uuid        PRIMARY KEY,
    type                 text        NOT NULL,
    transaction_id       uuid        NOT NULL,
    player_id            text        NOT NULL,
    currency             text        NOT NULL,
    amount_minor         bigint,     -- deposit, withdrawal, wager, refund
    win_minor            bigint,     -- settlements only (and the three below)
    house_win_minor      bigint,
    jackpot_win_minor    bigint,
    breakage_micro       bigint,
    contribution_micro   bigint,
    wager_id             uuid,       -- settlements and refunds
    game                 text,
    operator_id          text,
    network_id           text,
    reason               text,
    balance_after_minor  bigint      NOT NULL,
    recorded_at          timestamptz NOT NULL,
    broker_time          timestamptz NOT NULL
);
CREATE INDEX wallet_transactions_player ON wallet_transactions (player_id, recorded_at);
CREATE INDEX wallet_transactions_wager ON wallet_transactions (wager_id);

-- One row per posting of a wallet event (double entry: Σ amount_micro = 0 per event).
CREATE TABLE ledger_postings (
    event_id      uuid        NOT NULL,
    seq           integer     NOT NULL,  -- index in the event's postings
    account       text        NOT NULL,  -- player:<id> | house | jackpot:<network> | seed-funding | cashier
    currency      text        NOT NULL,
    amount_micro  bigint      NOT NULL,
    player_id     text        NOT NULL,  -- the event's subject
    recorded_at   timestamptz NOT NULL,
    broker_time   timestamptz NOT NULL,
    PRIMARY KEY (event_id, seq)
);
CREATE INDEX ledger_postings_account_time ON ledger_postings (account, currency, recorded_at);

-- Running balance per account and currency: Σ of its postings (only postings of newly projected events are added).
CREATE TABLE account_balances (
    account        text        NOT NULL,
    currency       text        NOT NULL,
    balance_micro  numeric     NOT NULL,  -- house and cashier sums may exceed bigint over years; exact anyway
    postings       bigint      NOT NULL,
    updated_at     timestamptz NOT NULL,  -- recorded_at of the latest posting added
    PRIMARY KEY (account, currency)
);

-- wallet.events: reelstream.wallet.command-rejected.v1
CREATE TABLE wallet_rejections (
    event_id        uuid        PRIMARY KEY,
    transaction_id  uuid        NOT NULL,
    player_id       text        NOT NULL,
    command_type    text        NOT NULL,
    code            text        NOT NULL,
    message         text        NOT NULL,
    currency        text,
    wager_id        uuid,
    recorded_at     timestamptz NOT NULL,
    broker_time     timestamptz NOT NULL
);

-- wallet.events: limit-set and self-excluded (player protection), data kept whole
CREATE TABLE player_controls (
    event_id     uuid        PRIMARY KEY,
    type         text        NOT NULL,
    player_id    text        NOT NULL,
    data         jsonb       NOT NULL,
    recorded_at  timestamptz NOT NULL,
    broker_time  timestamptz NOT NULL
);

-- jackpot.events: every pool movement (level history). kind: contributions | won | reseeded.
-- Identity per row: opening + contributions + seeds - paid = closing (exact, micro-units).
CREATE TABLE pool_movements (
    event_id             uuid        NOT NULL,
    seq                  integer     NOT NULL,
    kind                 text        NOT NULL,
    pool_id              text        NOT NULL,
    network_id           text        NOT NULL,
    currency             text        NOT NULL,
    opening_micro        bigint      NOT NULL,
    contributions_micro  bigint      NOT NULL,
    seeds_micro          bigint      NOT NULL,
    paid_micro           bigint      NOT NULL,
    closing_micro        bigint      NOT NULL,
    recorded_at          timestamptz NOT NULL,
    broker_time          timestamptz NOT NULL,
    PRIMARY KEY (event_id, seq)
);
CREATE INDEX pool_movements_pool_time ON pool_movements (pool_id, recorded_at);

-- The latest level of each pool (closing of its latest movement by recorded_at).
CREATE TABLE pools (
    pool_id        text        PRIMARY KEY,
    network_id     text        NOT NULL,
    currency       text        NOT NULL,
    level_micro    bigint      NOT NULL,
    recorded_at    timestamptz NOT NULL,
    last_event_id  uuid        NOT NULL
);

-- jackpot.events: each contribution inside a contributions-applied batch
CREATE TABLE contributions (
    event_id         uuid        NOT NULL,
    seq              integer     NOT NULL,
    contribution_id  uuid        NOT NULL,
    network_id       text        NOT NULL,
    currency         text        NOT NULL,
    game             text        NOT NULL,
    player_id        text        NOT NULL,
    operator_id      text,
    stake_minor      bigint      NOT NULL,
    amount_micro     bigint      NOT NULL,
    recorded_at      timestamptz NOT NULL,
    broker_time      timestamptz NOT NULL,
    PRIMARY KEY (event_id, seq)
);
CREATE INDEX contributions_contribution ON contributions (contribution_id);

-- jackpot.events: reelstream.jackpot.won.v1
CREATE TABLE jackpot_wins (
    event_id            uuid        PRIMARY KEY,
    claim_id            uuid        NOT NULL,
    request_id          uuid        NOT NULL,
    network_id          text        NOT NULL,
    pool_id             text        NOT NULL,
    tier                text        NOT NULL,
    player_id           text        NOT NULL,
    operator_id         text,
    currency            text        NOT NULL,
    stake_minor         bigint      NOT NULL,
    share_ppm           bigint      NOT NULL,
    amount_minor        bigint      NOT NULL,
    level_before_micro  bigint      NOT NULL,
    level_after_micro   bigint      NOT NULL,
    recorded_at         timestamptz NOT NULL,
    broker_time         timestamptz NOT NULL
);

-- jackpot.events: reelstream.jackpot.pool-reseeded.v1
CREATE TABLE pool_reseeds (
    event_id        uuid        PRIMARY KEY,
    pool_id         text        NOT NULL,
    network_id      text        NOT NULL,
    currency        text        NOT NULL,
    seed_micro      bigint      NOT NULL,
    cause_claim_id  uuid,
    recorded_at     timestamptz NOT NULL,
    broker_time     timestamptz NOT NULL
);

-- jackpot.events: reelstream.jackpot.claim-rejected.v1
CREATE TABLE claim_rejections (
    event_id     uuid        PRIMARY KEY,
    claim_id     uuid        NOT NULL,
    request_id   uuid        NOT NULL,
    network_id   text        NOT NULL,
    player_id    text        NOT NULL,
    tier         text        NOT NULL,
    code         text        NOT NULL,
    message      text        NOT NULL,
    recorded_at  timestamptz NOT NULL,
    broker_time  timestamptz NOT NULL
);

-- jackpot.meters: every meter reading seen (the topic is compacted; this keeps the history the projector saw)
CREATE TABLE meters (
    event_id     uuid        PRIMARY KEY,
    pool_id      text        NOT NULL,
    network_id   text        NOT NULL,
    currency     text        NOT NULL,
    level_minor  bigint      NOT NULL,
    as_of        timestamptz NOT NULL,
    broker_time  timestamptz NOT NULL
);
CREATE INDEX meters_pool_time ON meters (pool_id, as_of);
