"""Outstanding sub-cent remainders from both sides: the wallet's record (settlements, credits, each credit checked for
the rounding rule) and the spins' state chain, which must agree for every player and game the wallet keeps one of.
A seamless operator's wallet keeps no remainder: there, each round's one win is checked against the spin's journal."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from typing import Any, Callable

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy, fact_finding
from shared.events.seamless import SeamlessWinDecided
from shared.events.wallet import RemainderCredited, WagerSettled
from shared.money import MICRO_PER_MINOR
from shared.remainders import credit_minor


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
    if problem := _rounding_problem(data.remainder_micro, data.amount_minor):
        found.append(_found(fact, problem))
    known = remainders.get(key)
    if known is not None and known.micro != data.remainder_micro:
        found.append(_found(fact, f"credits {data.remainder_micro} micro; the wallet's record held {known.micro}"))
    wager_id = str(data.wager_id) if data.wager_id is not None else None
    remainders[key] = Outstanding(data.currency, 0, wager_id)
    return found


def _rounding_problem(remainder_micro: int, credited_minor: int | None) -> str | None:
    """Why a credit of a sub-cent remainder breaks the rule (rounded up to a whole minor unit), else None."""
    if not 0 < remainder_micro < MICRO_PER_MINOR or credited_minor != credit_minor(remainder_micro):
        return f"{remainder_micro} micro credited as {credited_minor} minor, not rounded up to a whole unit"
    return None


def seamless_credits(wins: Iterable[Fact], strands: Mapping[str, Fact]) -> list[Discrepancy]:
    """Each seamless round's win (SeamlessWinDecided) against the spin's journal (`strands`: request id -> its
    stake-change RemainderStranded): a wager that stranded a remainder credits it, rounded up, inside its one win; a
    win credits no remainder its spin did not strand."""
    found = []
    for fact in wins:
        data: SeamlessWinDecided = fact.data
        stranded = strands.get(str(data.wager_id))
        journaled_micro = stranded.data.remainder_micro if stranded is not None else None
        subject = f"player {data.player_id} wager {data.wager_id}"
        if data.remainder_stranded_micro != journaled_micro:
            detail = (
                f"the win credits {data.remainder_stranded_micro} micro; the spin's journal stranded {journaled_micro}"
            )
            found.append(fact_finding("remainder-credit-mismatch", subject, fact, detail))
        elif journaled_micro is not None and (
            problem := _rounding_problem(journaled_micro, data.remainder_credit_minor)
        ):
            found.append(fact_finding("remainder-credit-mismatch", subject, fact, problem))
        credit_minor = data.remainder_credit_minor or 0
        if data.amount_minor != data.house_win_minor + data.jackpot_win_minor + credit_minor:
            detail = f"the win of {data.amount_minor} is not house + pool shares + the credit of {credit_minor}"
            found.append(fact_finding("remainder-credit-mismatch", subject, fact, detail))
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
