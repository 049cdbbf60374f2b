"""What an attempt's outcome decides: a bet accepted, refused (and rolled back when it may have been applied), a
win acknowledged, retried with back-off or reported, a rollback acknowledged or retried. An answer to a call no
longer owed is recorded and changes nothing; an answer recorded before is a repeat."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from seamless import refusals
from seamless.port import Answered, NoAnswer, Outcome
from shared.decision import Decision
from shared.events.envelope import Envelope, epoch_ms
from shared.events.seamless import (
    SeamlessAnswerRecorded,
    SeamlessBetAccepted,
    SeamlessBetRefused,
    SeamlessRetryScheduled,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinReported,
)
from shared.operators import SeamlessWallet

from services.seamless_saga.core import backoff
from services.seamless_saga.core.calls import win_minor
from services.seamless_saga.core.emit import fact, of_round
from services.seamless_saga.core.messages import CallOutcome
from services.seamless_saga.core.state import OpenCall, Phase, Round
from services.seamless_saga.core.wagers import rollback_decided, win_decided

TIMED_OUT = "no answer within the bet's timeout"


def answered(
    round_: Round, message: CallOutcome, wallet: SeamlessWallet, draw: Callable[[], float], now: datetime
) -> Decision:
    kind = round_.call_kind(message.call_id)
    assert kind is not None, f"call {message.call_id} is not one of wager {round_.wager_id}'s"
    if (message.call_id, message.attempt) in round_.answered:
        return Decision(repeats=1)
    recorded = _recorded(round_, kind, message, now)
    owed = round_.open_call
    if owed is None or (owed.call_id, owed.attempt) != (message.call_id, message.attempt):
        return Decision(events=(recorded,))  # e.g. a bet's answer after its rollback was decided
    if kind == "bet":
        then = _bet_answered(round_, message.outcome, wallet, now)
    elif kind == "win":
        then = _win_answered(round_, owed, message.outcome, draw, now)
    else:
        then = _rollback_answered(round_, owed, message.outcome, draw, now)
    return Decision(events=(recorded, *then))


def timed_out(round_: Round, now: datetime) -> tuple[Envelope[Any], ...]:
    """A bet still unanswered at its answer_by: refused for the spin, and rolled back at the operator."""
    return _refused(round_, "", refusals.WALLET_UNAVAILABLE, None, now) + (
        rollback_decided(round_, now, TIMED_OUT, None),
    )


def _bet_answered(round_: Round, outcome: Outcome, wallet: SeamlessWallet, now: datetime) -> tuple[Envelope[Any], ...]:
    if epoch_ms(now) > round_.answer_by_ms:
        return timed_out(round_, now)
    balance_minor = outcome.balance_minor if isinstance(outcome, Answered) else None
    code = refusals.bet_refusal(outcome)
    if code is None:
        accepted = SeamlessBetAccepted(
            **of_round(round_, now),
            amount_minor=round_.amount_minor,
            currency=round_.currency,
            balance_minor=balance_minor,
        )
        then = (fact(accepted, now),)
        if round_.house_win_minor is not None:  # a PlaceWager: its win is known, so it is decided at once
            then += (win_decided(round_, wallet, now, None, round_.fingerprint, round_.bet_call_id),)
        return then
    status = outcome.status.value if isinstance(outcome, Answered) else ""
    refused = _refused(round_, status, code, balance_minor, now, rollback=refusals.bet_needs_rollback(outcome))
    if not refusals.bet_needs_rollback(outcome):
        return refused
    return refused + (rollback_decided(round_, now, f"the bet's outcome is in doubt ({status or 'no answer'})", None),)


def _win_answered(
    round_: Round, owed: OpenCall, outcome: Outcome, draw: Callable[[], float], now: datetime
) -> tuple[Envelope[Any], ...]:
    common = {**of_round(round_, now), "settlement_id": uuid.UUID(round_.settlement_id), "currency": round_.currency}
    if refusals.win_acknowledged(outcome):
        balance_minor = outcome.balance_minor if isinstance(outcome, Answered) else None
        acknowledged = SeamlessWinAcknowledged(
            **common, amount_minor=win_minor(round_), balance_after_minor=balance_minor
        )
        return (fact(acknowledged, now),)
    assert round_.give_up_ms is not None
    if epoch_ms(now) >= round_.give_up_ms:
        reported = SeamlessWinReported(
            **common, amount_minor=win_minor(round_), attempts=owed.attempt, last_status=_status(outcome)
        )
        return (fact(reported, now),)
    return (_retry(round_, owed, draw, now),)


def _rollback_answered(
    round_: Round, owed: OpenCall, outcome: Outcome, draw: Callable[[], float], now: datetime
) -> tuple[Envelope[Any], ...]:
    if refusals.rollback_acknowledged(outcome):
        rolled_back = SeamlessRolledBack(
            **of_round(round_, now), amount_minor=round_.amount_minor, currency=round_.currency
        )
        return (fact(rolled_back, now),)
    return (_retry(round_, owed, draw, now),)


def _retry(round_: Round, owed: OpenCall, draw: Callable[[], float], now: datetime) -> Envelope[Any]:
    due = now + timedelta(milliseconds=backoff.delay_ms(owed.attempt, draw()))
    scheduled = SeamlessRetryScheduled(
        **of_round(round_, now),
        call_id=uuid.UUID(owed.call_id),
        call_kind=owed.kind,
        attempt=owed.attempt + 1,
        due_at=due,
    )
    return fact(scheduled, now, owed.call_id, owed.attempt + 1)


def _refused(
    round_: Round, status: str, code: str, balance_minor: int | None, now: datetime, rollback: bool = True
) -> tuple[Envelope[Any], ...]:
    refused = SeamlessBetRefused(
        **of_round(round_, now),
        code=code,
        status=status,
        rolled_back=rollback,
        currency=round_.currency,
        balance_minor=balance_minor,
    )
    return (fact(refused, now),)


def _recorded(round_: Round, kind: str, message: CallOutcome, now: datetime) -> Envelope[Any]:
    outcome = message.outcome
    answer: dict[str, Any]
    if isinstance(outcome, NoAnswer):
        answer = {"no_answer": outcome.reason.value, "detail": outcome.detail[:200]}
    else:
        answer = {
            "status": outcome.status.value,
            "operator_status": outcome.operator_status[:64],
            "balance_minor": outcome.balance_minor,
        }
    recorded = SeamlessAnswerRecorded(
        **of_round(round_, now), call_id=uuid.UUID(message.call_id), call_kind=kind, attempt=message.attempt, **answer
    )
    return fact(recorded, now, message.call_id, message.attempt)


def _status(outcome: Outcome) -> str:
    return outcome.reason.value if isinstance(outcome, NoAnswer) else outcome.status.value


def expired(round_: Round, now_ms: int) -> bool:
    """A bet unanswered at its answer_by."""
    return round_.phase is Phase.BETTING and now_ms > round_.answer_by_ms
