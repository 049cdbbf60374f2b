"""evolve(book, event) -> book: the one fold of wallet.seamless, live (as each event is decided) and on restore."""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from shared.events.envelope import Envelope, epoch_ms
from shared.events.seamless import (
    SeamlessAnswerRecorded,
    SeamlessBetAccepted,
    SeamlessBetDecided,
    SeamlessBetRefused,
    SeamlessRetryScheduled,
    SeamlessRollbackDecided,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
    SeamlessWinReported,
)
from shared.invariant import invariant

from services.seamless_saga.core.state import OpenCall, Phase, Round, SeamlessBook


def evolve(book: SeamlessBook, event: Envelope[Any]) -> SeamlessBook:
    data = event.data
    wager_id = str(data.wager_id)
    book.prune(epoch_ms(data.recorded_at))
    if isinstance(data, SeamlessBetDecided):
        if wager_id not in book.rounds:  # a bet decided again (a re-emitted repeat) changes nothing
            book.rounds[wager_id] = _opened(data, str(event.id))
            book.round_of_call[str(event.id)] = wager_id
            book.owes(book.rounds[wager_id])
        return book
    round_ = book.rounds.get(wager_id)
    invariant(round_ is not None, f"a seamless event of wager {wager_id} follows its bet")
    _apply(data, round_, str(event.id), book)
    book.owes(round_)
    return book


def _opened(data: SeamlessBetDecided, call_id: str) -> Round:
    round_ = Round(
        wager_id=str(data.wager_id),
        player_id=data.player_id,
        operator_id=data.operator_id,
        currency=data.currency,
        game=data.game,
        amount_minor=data.amount_minor,
        fingerprint=data.command_fingerprint,
        bet_call_id=call_id,
        answer_by_ms=epoch_ms(data.answer_by),
        remainder_stranded_micro=data.remainder_stranded_micro,
    )
    if data.settlement_id is not None:
        round_.settlement_id, round_.house_win_minor = str(data.settlement_id), data.win_minor
    round_.open_call = OpenCall(call_id, "bet", 1, epoch_ms(data.recorded_at))
    return round_


@singledispatch
def _apply(data: Any, round_: Round, event_id: str, book: SeamlessBook) -> None:
    raise AssertionError(f"not a seamless event: {type(data).__name__}")


@_apply.register
def _(data: SeamlessAnswerRecorded, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.answered.add((str(data.call_id), data.attempt))
    round_.last_status = data.status or data.no_answer


@_apply.register
def _(data: SeamlessBetAccepted, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase, round_.open_call = Phase.ACCEPTED, None


@_apply.register
def _(data: SeamlessBetRefused, round_: Round, event_id: str, book: SeamlessBook) -> None:
    # A rollback follows a doubtful refusal in the same decision and opens its own call; a sure one closes the round.
    round_.phase, round_.open_call = Phase.REFUSED, None
    if not data.rolled_back:
        book.close(round_.wager_id, epoch_ms(data.recorded_at))


@_apply.register
def _(data: SeamlessWinDecided, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase = Phase.WINNING
    round_.settlement_id = str(data.settlement_id)
    round_.house_win_minor, round_.jackpot_win_minor = data.house_win_minor, data.jackpot_win_minor
    round_.settle_fingerprint = data.command_fingerprint
    round_.win_call_id, round_.give_up_ms = event_id, epoch_ms(data.give_up_at)
    round_.open_call = OpenCall(event_id, "win", 1, epoch_ms(data.recorded_at))
    book.round_of_call[event_id] = round_.wager_id


@_apply.register
def _(data: SeamlessRollbackDecided, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase, round_.rollback_call_id = Phase.ROLLING_BACK, event_id
    round_.open_call = OpenCall(event_id, "rollback", 1, epoch_ms(data.recorded_at))
    book.round_of_call[event_id] = round_.wager_id


@_apply.register
def _(data: SeamlessRetryScheduled, round_: Round, event_id: str, book: SeamlessBook) -> None:
    invariant(round_.open_call is not None, "a retry is of a call still owed")
    invariant(round_.open_call.call_id == str(data.call_id), "a retry is of the round's open call")
    round_.open_call = OpenCall(str(data.call_id), data.call_kind, data.attempt, epoch_ms(data.due_at))


@_apply.register
def _(data: SeamlessWinAcknowledged, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase, round_.open_call = Phase.WON, None
    book.close(round_.wager_id, epoch_ms(data.recorded_at))


@_apply.register
def _(data: SeamlessRolledBack, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase, round_.open_call = Phase.ROLLED_BACK, None
    book.close(round_.wager_id, epoch_ms(data.recorded_at))


@_apply.register
def _(data: SeamlessWinReported, round_: Round, event_id: str, book: SeamlessBook) -> None:
    round_.phase, round_.open_call = Phase.REPORTED, None
    book.close(round_.wager_id, epoch_ms(data.recorded_at))
