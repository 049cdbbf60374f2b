"""One way to wrap a seamless fact: deterministic ids from the round and its cause, so a message decided again
yields the same facts and the same call ids (the operator's idempotency keys)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from shared.events.envelope import Envelope, derived_id, envelope
from shared.events.seamless import _RoundEvent

from services.seamless_saga.core.state import Round

SOURCE = "reelstream/wallet-seamless"


def fact(data: _RoundEvent, now: datetime, *cause: object, caused_by: str | None = None) -> Envelope[Any]:
    """`data` as an event whose id derives from its wager, type and `cause` (an attempt, a call id)."""
    event_id: uuid.UUID = derived_id("seamless", data.wager_id, data.TYPE, *cause)
    return envelope(data, source=SOURCE, time=now, id=event_id, correlationid=str(data.wager_id), causationid=caused_by)


def of_round(round_: Round, now: datetime) -> dict[str, Any]:
    """The fields every fact of a round carries: whose round it is, and when."""
    return {
        "wager_id": uuid.UUID(round_.wager_id),
        "player_id": round_.player_id,
        "operator_id": round_.operator_id,
        "recorded_at": now,
    }
