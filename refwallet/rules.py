"""The wallet's rules, pure: given the player, the call and what the ledger holds, the status and the change. Hub88's
reading: wins and rollbacks check no session; a rollback of an unknown bet is recorded, so the bet never lands."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from seamless.port import BetCall, MoneyCall, RollbackCall, Status, WinCall


@dataclass(frozen=True)
class Player:
    player_id: str
    currency: str
    balance_minor: int
    disabled: bool = False
    bet_limit_minor: int | None = None
    session_token: str | None = None


@dataclass(frozen=True)
class Entry:
    """A transaction the ledger recorded (refused bets and rollbacks of unknown bets included: their ids are spent)."""

    transaction_id: uuid.UUID
    kind: str
    player_id: str
    amount_minor: int
    round_id: str
    status: Status
    bet_transaction_id: uuid.UUID | None = None
    rolled_back: bool = False
    won: bool = False


@dataclass(frozen=True)
class Decision:
    status: Status
    delta_minor: int = 0
    record: Entry | None = None
    rolls_back: uuid.UUID | None = None
    wins: uuid.UUID | None = None


def entry_of(call: MoneyCall, status: Status, amount_minor: int) -> Entry:
    bet_id = None if isinstance(call, BetCall) else call.bet_transaction_id
    return Entry(call.transaction_id, call.kind, call.player_id, amount_minor, call.round_id, status, bet_id)


def same_transaction(call: MoneyCall, entry: Entry) -> bool:
    """Whether `call` repeats the recorded transaction, rather than reusing its id for something else."""
    amount = getattr(call, "amount_minor", entry.amount_minor)
    bet_id = None if isinstance(call, BetCall) else call.bet_transaction_id
    return (call.kind, call.player_id, call.round_id, bet_id, amount) == (
        entry.kind,
        entry.player_id,
        entry.round_id,
        entry.bet_transaction_id,
        entry.amount_minor,
    )


def decide(
    call: MoneyCall, player: Player | None, same_id: Entry | None, bet: Entry | None, rolled_back_before: bool
) -> Decision:
    """`same_id`: the entry under the call's transaction id; `bet`: the bet a win or rollback names;
    `rolled_back_before`: a rollback of this bet's id came first."""
    if player is None:
        return Decision(Status.SESSION_GONE)
    if same_id is not None:
        return Decision(same_id.status if same_transaction(call, same_id) else Status.DUPLICATE_CONFLICT)
    if isinstance(call, BetCall):
        return _bet(call, player, rolled_back_before)
    if isinstance(call, WinCall):
        return _win(call, player, bet)
    return _rollback(call, player, bet)


def _bet_status(call: BetCall, player: Player, rolled_back_before: bool) -> Status:
    if rolled_back_before:
        return Status.ALREADY_ROLLED_BACK
    if call.currency != player.currency:
        return Status.CURRENCY_MISMATCH
    if player.disabled:
        return Status.PLAYER_DISABLED
    if player.session_token is not None and call.session_token != player.session_token:
        return Status.SESSION_GONE
    if player.bet_limit_minor is not None and call.amount_minor > player.bet_limit_minor:
        return Status.LIMIT_REACHED
    if call.amount_minor > player.balance_minor:
        return Status.INSUFFICIENT_FUNDS
    return Status.OK


def _bet(call: BetCall, player: Player, rolled_back_before: bool) -> Decision:
    status = _bet_status(call, player, rolled_back_before)
    delta = -call.amount_minor if status is Status.OK else 0
    return Decision(status, delta, entry_of(call, status, call.amount_minor))


def _win(call: WinCall, player: Player, bet: Entry | None) -> Decision:
    if bet is None or bet.kind != "bet" or bet.status is not Status.OK:
        return Decision(Status.UNKNOWN_TRANSACTION)
    if bet.rolled_back:
        return Decision(Status.ALREADY_ROLLED_BACK)
    if bet.player_id != call.player_id:
        return Decision(Status.MALFORMED)
    if call.currency != player.currency:
        return Decision(Status.CURRENCY_MISMATCH)
    return Decision(Status.OK, call.amount_minor, entry_of(call, Status.OK, call.amount_minor), wins=bet.transaction_id)


def _rollback(call: RollbackCall, player: Player, bet: Entry | None) -> Decision:
    if bet is None or (bet.kind == "bet" and bet.status is not Status.OK):
        # Nothing to undo; recorded, so the bet, should it arrive late, is refused.
        return Decision(Status.UNKNOWN_TRANSACTION, 0, entry_of(call, Status.UNKNOWN_TRANSACTION, 0))
    if bet.kind != "bet" or bet.player_id != call.player_id:
        return Decision(Status.MALFORMED)
    if bet.rolled_back:
        return Decision(Status.ALREADY_ROLLED_BACK)
    if bet.won:
        # A settled round is not undone: the caller rolls back only bets it got no answer for.
        return Decision(Status.ERROR)
    record = entry_of(call, Status.OK, bet.amount_minor)
    return Decision(Status.OK, bet.amount_minor, record, rolls_back=bet.transaction_id)
