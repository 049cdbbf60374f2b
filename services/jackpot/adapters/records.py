"""Between Kafka records and the core: commands of jackpot.commands (the operator's) and jackpot.internal (the spin
service's) as the loop reads them (shared/inbound.py), the core's input or why not; the records to publish."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.decision import Undecodable
from shared.inbound import Inbound, Input
from shared.input_position import Output
from shared.events import Envelope, encode
from shared.topics import JACKPOT_COMMANDS, JACKPOT_INTERNAL

from services.jackpot.core.inputs import Incoming

HEADERS = records.headers_for("jackpot")
INPUTS = (Input(JACKPOT_COMMANDS), Input(JACKPOT_INTERNAL))  # the operator's commands, then the spin service's


def incoming_of(found: Inbound) -> Incoming | tuple[str, str]:
    """A read record as the core's input, or (code, reason) of its refusal: the loop's, or the decoder's."""
    if found.refusal is not None:
        return found.refusal.code, found.refusal.reason
    assert found.message is not None, "every jackpot record is read: a message or a refusal"
    payload = found.message.payload
    if isinstance(payload, Undecodable):
        error = payload.error
        return (error.code, error.reason) if isinstance(error, records.Misfit) else ("UNDECODABLE", str(error))
    return Incoming(payload, found.message.broker_ms, position=found.record)


def logical_topic(record: Any) -> str:
    """Which of the jackpot's two inputs a record was read from (its physical topic: a prefix + the name)."""
    return JACKPOT_INTERNAL if record.topic.endswith(JACKPOT_INTERNAL) else JACKPOT_COMMANDS


def event_record(event: Envelope[Any]) -> Output:
    return Output(False, event.key, encode(event), list(HEADERS))


def dead_letter_record(record: Any, code: str, reason: str) -> Output:
    """The original bytes, untouched, with why they were refused and where they came from: for the DLQ of the
    record's own topic (the loop's DLQ is jackpot.commands'; jackpot.internal's letters name theirs)."""
    logical = logical_topic(record)
    letter = records.dead_letter(logical, record.topic, record, code=code, reason=reason, consumer="jackpot")
    topic = None if logical == JACKPOT_COMMANDS else records.physical_dlq(record.topic, logical)
    return Output(True, letter.key, letter.value, letter.headers, topic)
