-- The reference wallet's ledger, in a schema of its own.
CREATE SCHEMA IF NOT EXISTS refwallet;
CREATE TABLE IF NOT EXISTS refwallet.players (
    player_id text PRIMARY KEY,
    currency text NOT NULL,
    balance_minor bigint NOT NULL CHECK (balance_minor >= 0),
    disabled boolean NOT NULL DEFAULT false,
    bet_limit_minor bigint,
    session_token text
);
-- Every bet, win and rollback, in the order they committed (the reconciliation feed reads it by position).
CREATE TABLE IF NOT EXISTS refwallet.transactions (
    position bigserial PRIMARY KEY,
    transaction_id uuid NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('bet', 'win', 'rollback')),
    player_id text NOT NULL REFERENCES refwallet.players,
    currency text NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
    bet_transaction_id uuid,
    round_id text NOT NULL,
    status text NOT NULL,
    rolled_back boolean NOT NULL DEFAULT false,
    won boolean NOT NULL DEFAULT false,
    balance_after_minor bigint NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS transactions_by_bet ON refwallet.transactions (bet_transaction_id);
-- The first answer to each request id of a money call, returned as is to every repeat.
CREATE TABLE IF NOT EXISTS refwallet.answers (
    request_id uuid PRIMARY KEY,
    fingerprint bytea NOT NULL,
    answer jsonb NOT NULL
);
