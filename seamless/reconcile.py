"""Reconciliation, pure: reelstream's record of a seamless operator's transactions (every bet, win and rollback it
asked for, with the answer it got) against the operator's transaction list, and every difference between them named."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from seamless.exceptions import SeamlessError
from seamless.port import Status

NO_ANSWER = ""
OK = Status.OK.value


@dataclass(frozen=True)
class Transaction:
    """One bet, win or rollback as one side holds it. `status`: the operator's answer (NO_ANSWER: reelstream got
    none); `rolled_back`: a bet undone (reelstream's side: its rollback acknowledged; the operator's: its flag). A
    rollback's `amount_minor` is the stake it returns."""

    transaction_id: str
    kind: str
    player_id: str
    currency: str
    amount_minor: int
    round_id: str
    bet_transaction_id: str | None
    status: str
    rolled_back: bool = False


class Kind(StrEnum):
    # Answered OK to reelstream, or a bet the operator's own win or rollback moved money against, absent from its list
    # (or listed as not taken).
    MISSING_AT_OPERATOR = "MISSING_AT_OPERATOR"
    UNKNOWN_TO_REELSTREAM = "UNKNOWN_TO_REELSTREAM"  # in the operator's list, never asked for by reelstream
    AMOUNT_DIFFERS = "AMOUNT_DIFFERS"
    STATUS_DIFFERS = "STATUS_DIFFERS"  # the answer reelstream recorded is not the status the operator lists
    DETAIL_DIFFERS = "DETAIL_DIFFERS"  # kind, player, currency, round or the bet referred to
    ROLLBACK_DIFFERS = "ROLLBACK_DIFFERS"  # one side holds the bet rolled back, the other not
    ANSWER_MISSING = "ANSWER_MISSING"  # the operator applied a win or rollback reelstream holds no answer to
    BET_UNSETTLED = "BET_UNSETTLED"  # a bet the operator took, neither won nor rolled back


@dataclass(frozen=True)
class Difference:
    kind: Kind
    transaction_id: str
    round_id: str
    player_id: str
    ours: str
    theirs: str


_DETAILS = ("kind", "player_id", "currency", "round_id", "bet_transaction_id")


def describe(transaction: Transaction | None) -> str:
    if transaction is None:
        return "absent"
    t = transaction
    undone = " rolled back" if t.rolled_back else ""
    return f"{t.kind} {t.status or 'no answer'} {t.amount_minor} {t.currency}{undone}"


def _by_id(side: Iterable[Transaction], name: str) -> dict[str, Transaction]:
    held: dict[str, Transaction] = {}
    for transaction in side:
        if transaction.transaction_id in held:
            raise SeamlessError(f"{name} lists transaction {transaction.transaction_id} twice")
        held[transaction.transaction_id] = transaction
    return held


def differences(ours: Iterable[Transaction], theirs: Iterable[Transaction]) -> list[Difference]:
    """Every difference between reelstream's record (`ours`) and the operator's list (`theirs`), in the order of
    reelstream's record, then the bets the operator moved money against without listing them, then the operator's
    transactions reelstream never asked for, then the unsettled bets."""
    asked, held = _by_id(ours, "reelstream's record"), _by_id(theirs, "the operator's list")
    found: list[Difference] = []
    for transaction_id, mine in asked.items():
        found += _compared(mine, held.get(transaction_id))
    named = {d.transaction_id for d in found if d.kind is Kind.MISSING_AT_OPERATOR}
    found += [
        _named(Kind.MISSING_AT_OPERATOR, asked[i], held.get(i))
        for i in unlisted_bets(held)
        if i in asked.keys() - named
    ]
    found += [_named(Kind.UNKNOWN_TO_REELSTREAM, None, t) for i, t in held.items() if i not in asked]
    found += [_named(Kind.BET_UNSETTLED, asked.get(t.transaction_id), t) for t in unsettled(held.values())]
    return found


def _named(kind: Kind, mine: Transaction | None, yours: Transaction | None, what: str = "") -> Difference:
    either = mine or yours
    assert either is not None
    ours, theirs = describe(mine), describe(yours)
    if what:
        ours, theirs = f"{what} {getattr(mine, what)}", f"{what} {getattr(yours, what)}"
    return Difference(kind, either.transaction_id, either.round_id, either.player_id, ours, theirs)


def _compared(mine: Transaction, yours: Transaction | None) -> list[Difference]:
    if yours is None:
        # Only an applied call must be listed: an operator need not record a call it refused or never received.
        return [_named(Kind.MISSING_AT_OPERATOR, mine, None)] if mine.status == OK else []
    found = [_named(Kind.DETAIL_DIFFERS, mine, yours, what) for what in _DETAILS if _differs(mine, yours, what)]
    # A rollback of a bet the operator never applied returns nothing, whatever stake reelstream knew of.
    if mine.amount_minor != yours.amount_minor and (mine.kind != "rollback" or yours.status == OK):
        found.append(_named(Kind.AMOUNT_DIFFERS, mine, yours, "amount_minor"))
    if mine.status != NO_ANSWER and mine.status != yours.status:
        found.append(_named(Kind.STATUS_DIFFERS, mine, yours, "status"))
    # A bet's lost answer is closed by its rollback (compared below); a win's or a rollback's is still owed.
    if mine.status == NO_ANSWER and mine.kind != "bet" and yours.status == OK:
        found.append(_named(Kind.ANSWER_MISSING, mine, yours))
    if mine.kind == "bet" and yours.status == OK and mine.rolled_back != yours.rolled_back:
        found.append(_named(Kind.ROLLBACK_DIFFERS, mine, yours, "rolled_back"))
    return found


def _differs(mine: Transaction, yours: Transaction, what: str) -> bool:
    return getattr(mine, what) != getattr(yours, what)


def unlisted_bets(held: dict[str, Transaction]) -> list[str]:
    """The bets a list's wins and rollbacks moved money against (OK) that it does not hold as taken (OK)."""
    moved = [t.bet_transaction_id for t in held.values() if t.kind != "bet" and t.status == OK]
    return [i for i in dict.fromkeys(moved) if i is not None and (i not in held or held[i].status != OK)]


def unsettled(held: Iterable[Transaction]) -> list[Transaction]:
    """The bets a list holds as taken (OK), neither rolled back nor won by a win it holds as OK."""
    listed = list(held)
    won = {t.bet_transaction_id for t in listed if t.kind == "win" and t.status == OK}
    return [
        t for t in listed if t.kind == "bet" and t.status == OK and not t.rolled_back and t.transaction_id not in won
    ]
