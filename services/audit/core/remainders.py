"""Outstanding sub-cent remainders from both sides: the wallet's record (settlements, credits, each credit checked for
the rounding rule) and the spins' state chain, which must agree for every player and game the wallet keeps one of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy, fact_finding
from shared.events.wallet import RemainderCredited, WagerSettled
from shared.money import MICRO_PER_MINOR


@dataclass(frozen=True)
class Outstanding:
    """The wallet's record of one player's remainder in one game; `wager_id`: the wager whose settlement left it."""

    currency: str
    micro: int
    wager_id: str | None


Key = tuple[str, str]  # (player id, game)


def fold(remainders: dict[Key, Outstanding], fact: Fact, game_of: Callable[[str], str | None]) -> list[Discrepancy]:
    """One posted wallet fact into the record (`game_of`: a wager id's game, from its debit); the findings of a
    credit that breaks the rule."""
    data = fact.data
    if isinstance(data, WagerSettled) and data.remainder_after_micro is not None:
        game = game_of(str(data.wager_id))
        if game is not None:
            left = Outstanding(data.currency, data.remainder_after_micro, str(data.wager_id))
            remainders[(data.player_id, game)] = left
        return []
    if not isinstance(data, RemainderCredited):
        return []
    key = (data.player_id, data.game)
    found = []
    rounded_up = data.amount_minor * MICRO_PER_MINOR - data.remainder_micro in range(MICRO_PER_MINOR)
    if not 0 < data.remainder_micro < MICRO_PER_MINOR or not rounded_up:
        detail = f"{data.remainder_micro} micro credited as {data.amount_minor} minor, not rounded up to a whole unit"
        found.append(_found(fact, detail))
    known = remainders.get(key)
    if known is not None and known.micro != data.remainder_micro:
        found.append(_found(fact, f"credits {data.remainder_micro} micro; the wallet's record held {known.micro}"))
    wager_id = str(data.wager_id) if data.wager_id is not None else None
    remainders[key] = Outstanding(data.currency, 0, wager_id)
    return found


def reconcile(
    remainders: dict[Key, Outstanding],
    spin_state: Callable[[Key], dict[str, Any] | None],
    settled: Callable[[str], bool],
    carried: Callable[[str, dict[str, Any]], int | None],
) -> list[Discrepancy]:
    """Each remainder on the wallet's record against the spins' state for that player and game (`spin_state`: the
    state after the chain, None when no spin is read). A record whose spin is not settled yet is in flight."""
    found = []
    for (player, game), record in sorted(remainders.items()):
        if record.wager_id is not None and not settled(record.wager_id):
            continue
        state = spin_state((player, game))
        if state is None:
            continue
        spin_micro = carried(game, state) or 0
        if spin_micro != record.micro:
            found.append(
                Discrepancy(
                    check="remainder-mismatch",
                    subject=f"player {player} {game}",
                    detail=f"the wallet's record holds {record.micro} micro, the spins' state {spin_micro}",
                )
            )
    return found


def report_rows(remainders: dict[Key, Outstanding]) -> list[dict[str, Any]]:
    """Per currency: the players with a remainder outstanding and its sum (the house owes it until it is paid)."""
    totals: dict[str, dict[str, Any]] = {}
    for record in remainders.values():
        if record.micro == 0:
            continue
        row = totals.setdefault(record.currency, {"currency": record.currency, "players": 0, "outstanding_micro": 0})
        row["players"] += 1
        row["outstanding_micro"] += record.micro
    return [totals[currency] for currency in sorted(totals)]


def _found(fact: Fact, detail: str) -> Discrepancy:
    return fact_finding("remainder-credit-mismatch", f"player {fact.data.player_id} {fact.data.game}", fact, detail)
