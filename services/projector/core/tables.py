"""Column order of every projected table as staged by the projector (must match migrations/*.sql)."""
from __future__ import annotations

EVENT_TABLE = "events"
POSITIONS_TABLE = "positions"

# Tables filled straight from event rows, in the order they are written. `events` comes first: only rows whose
# event id was newly inserted there are copied into the others (the projection's de-duplication).
COLUMNS: dict[str, tuple[str, ...]] = {
    "events": (
        "event_id", "type", "source", "subject", "event_time", "topic", "partition", "offset", "broker_time",
        "correlationid", "causationid",
    ),
    "spins": (
        "event_id", "request_id", "player_id", "game", "currency", "operator_id", "stake_minor", "win_minor",
        "house_win_minor", "jackpot_win_minor", "breakage_micro", "contribution_micro", "balance_after_minor",
        "model_version", "seed", "state_before", "state_after", "outcome", "jackpot_awards", "settled_at", "broker_time",
    ),
    "spin_rejections": ("event_id", "request_id", "player_id", "code", "message", "game", "stake_minor", "broker_time"),
    "spin_journal": ("event_id", "type", "request_id", "player_id", "game", "data", "broker_time"),
    "wallet_transactions": (
        "event_id", "type", "transaction_id", "player_id", "currency", "amount_minor", "win_minor", "house_win_minor",
        "jackpot_win_minor", "breakage_micro", "contribution_micro", "wager_id", "game", "operator_id", "network_id",
        "reason", "balance_after_minor", "recorded_at", "broker_time",
    ),
    "ledger_postings": ("event_id", "seq", "account", "currency", "amount_micro", "player_id", "recorded_at", "broker_time"),
    "wallet_rejections": (
        "event_id", "transaction_id", "player_id", "command_type", "code", "message", "currency", "wager_id",
        "recorded_at", "broker_time",
    ),
    "player_controls": ("event_id", "type", "player_id", "data", "recorded_at", "broker_time"),
    "pool_movements": (
        "event_id", "seq", "kind", "pool_id", "network_id", "currency", "opening_micro", "contributions_micro",
        "seeds_micro", "paid_micro", "closing_micro", "recorded_at", "broker_time",
    ),
    "contributions": (
        "event_id", "seq", "contribution_id", "network_id", "currency", "game", "player_id", "operator_id",
        "stake_minor", "amount_micro", "recorded_at", "broker_time",
    ),
    "jackpot_wins": (
        "event_id", "claim_id", "request_id", "network_id", "pool_id", "tier", "player_id", "operator_id", "currency",
        "stake_minor", "share_ppm", "amount_minor", "level_before_micro", "level_after_micro", "recorded_at",
        "broker_time",
    ),
    "pool_reseeds": (
        "event_id", "pool_id", "network_id", "currency", "seed_micro", "cause_claim_id", "recorded_at", "broker_time",
    ),
    "claim_rejections": (
        "event_id", "claim_id", "request_id", "network_id", "player_id", "tier", "code", "message", "recorded_at",
        "broker_time",
    ),
    "meters": ("event_id", "pool_id", "network_id", "currency", "level_minor", "as_of", "broker_time"),
    "pool_admin": ("event_id", "type", "pool_id", "network_id", "data", "recorded_at", "broker_time"),
}

# Folded tables, maintained in SQL from the staged rows above (see adapters/store.py).
FOLDED_TABLES = ("account_balances", "pools")

# Every table a rebuild must reproduce exactly (schema_migrations differs only in applied_at).
COMPARED_TABLES: tuple[str, ...] = (POSITIONS_TABLE, *COLUMNS, *FOLDED_TABLES)
