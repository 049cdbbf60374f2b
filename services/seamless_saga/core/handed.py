"""An attempt's outcome as the outbox hands it to the saga's loop (RecordCallOutcome on wallet.seamless-calls),
and back: the port's Answered or NoAnswer, so the core decides on what the client returned."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from seamless.port import Answered, NoAnswer, NoAnswerReason, Outcome, Status
from shared.events.envelope import Envelope, derived_id, envelope
from shared.events.seamless import RecordCallOutcome

from services.seamless_saga.core.emit import SOURCE
from services.seamless_saga.core.messages import CallOutcome


def handed(player_id: str, outcome: CallOutcome, now: datetime) -> Envelope[Any]:
    """The record of `outcome`; its id derives from the call and the attempt."""
    found = outcome.outcome
    if isinstance(found, NoAnswer):
        fields: dict[str, Any] = {"no_answer": found.reason.value, "detail": found.detail[:200]}
    else:
        fields = {"status": found.status.value, "operator_status": found.operator_status[:64]}
        fields["balance_minor"] = found.balance_minor
    data = RecordCallOutcome(player_id=player_id, call_id=uuid.UUID(outcome.call_id), attempt=outcome.attempt, **fields)
    event_id = derived_id("seamless-call", outcome.call_id, outcome.attempt)
    return envelope(data, source=SOURCE, time=now, id=event_id, correlationid=outcome.call_id)


def taken(data: RecordCallOutcome) -> CallOutcome:
    """The CallOutcome a handed record carries."""
    outcome: Outcome
    if data.no_answer:
        outcome = NoAnswer(request_id=data.call_id, reason=NoAnswerReason(data.no_answer), detail=data.detail)
    else:
        status = Status(data.status)
        outcome = Answered(
            request_id=data.call_id,
            status=status,
            balance_minor=data.balance_minor,
            operator_status=data.operator_status,
        )
    return CallOutcome(str(data.call_id), data.attempt, outcome)
