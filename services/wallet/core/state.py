"""One player's wallet state (every currency) and the de-duplication memory, as plain immutable values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class OpenWager:
    """A debited wager waiting for its one settlement or refund."""

    currency: str
    amount_minor: int
    debited_ms: int
    game: str = ""  # "" in snapshots written before wagers named their game


@dataclass(frozen=True, slots=True)
class Remainder:
    """A player's outstanding sub-cent remainder in one game: owed by the house until a spin completes it or the
    wallet credits it. `wager_id`: the wager whose settlement left it; `held_by`: an open wager that carried it in
    (its settlement or refund decides what is left)."""

    currency: str
    micro: int
    wager_id: str | None = None
    held_by: str | None = None


@dataclass(frozen=True, slots=True)
class LimitRule:
    """A deposit or loss limit; an increase (or removal) waits in `pending_*` until `pending_effective_ms`."""

    amount_minor: int | None = None
    pending_amount_minor: int | None = None
    pending_effective_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """What counted against a limit in one calendar period (`period_key`, e.g. "2026-W48"); losses may be < 0."""

    period_key: str
    used_minor: int


@dataclass(frozen=True, slots=True)
class Remembered:
    """What a transaction id produced: a repeat inside the window is answered with the fact `event_id` again (the
    loop re-emits its very record: shared/repeats.py)."""

    transaction_id: str
    seq: int
    recorded_ms: int
    fingerprint: str
    event_id: str
    event_type: str


@dataclass(frozen=True, slots=True)
class PlayerState:
    """Balances, open wagers, limits and exclusion of one player. `seq` counts the remembered events applied."""

    player_id: str
    seq: int = 0
    balances_minor: Mapping[str, int] = field(default_factory=dict)
    open_wagers: Mapping[str, OpenWager] = field(default_factory=dict)
    # Keys "<currency>:<kind>:<period>", e.g. "EUR:loss:week".
    limits: Mapping[str, LimitRule] = field(default_factory=dict)
    usage: Mapping[str, Usage] = field(default_factory=dict)
    excluded_until_ms: int | None = None
    excluded_indefinitely: bool = False
    # The operator the account belongs to: the one of its first deposit signed with an operator's cashier key (None:
    # no operator's yet). Another operator's cashier commands and wagers are refused (decide: OPERATOR_MISMATCH).
    operator_id: str | None = None
    # Per game: the outstanding sub-cent remainder (docs/wallet.md, "Remainders").
    remainders: Mapping[str, Remainder] = field(default_factory=dict)
    closed: bool = False


@dataclass(frozen=True, slots=True)
class WalletState:
    """The state `decide` reads: the player plus the memory of recent transaction ids (a lazy view in the adapter)."""

    player: PlayerState
    memory: Mapping[str, Remembered] = field(default_factory=dict)


def limit_key(currency: str, kind: str, period: str) -> str:
    return f"{currency}:{kind}:{period}"
