"""Between Kafka records and the core: commands of jackpot.commands (the operator's) and jackpot.internal (the spin
service's) as the loop reads them (shared/inbound.py); the records to publish."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.inbound import Input
from shared.input_position import Output
from shared.events import Envelope, encode
from shared.topics import JACKPOT_COMMANDS, JACKPOT_INTERNAL

HEADERS = records.headers_for("jackpot")
INPUTS = (
    Input(JACKPOT_COMMANDS),
    Input(JACKPOT_INTERNAL, packed=True),
)  # the operator's commands, then the spin service's


def logical_topic(record: Any) -> str:
    """Which of the jackpot's two inputs a record was read from (its physical topic: a prefix + the name)."""
    return JACKPOT_INTERNAL if record.topic.endswith(JACKPOT_INTERNAL) else JACKPOT_COMMANDS


def event_record(event: Envelope[Any]) -> Output:
    return Output(False, event.key, encode(event), list(HEADERS), message_type=event.type)


def dead_letter_record(record: Any, code: str, reason: str, field: str = "$") -> Output:
    """The original bytes, untouched, with why they were refused and where they came from: for the DLQ of the
    record's own topic (the loop's DLQ is jackpot.commands'; jackpot.internal's letters name theirs)."""
    logical = logical_topic(record)
    letter = records.dead_letter(
        logical, record.topic, record, code=code, reason=reason, field=field, consumer="jackpot"
    )
    topic = None if logical == JACKPOT_COMMANDS else records.physical_dlq(record.topic, logical)
    return Output(True, letter.key, letter.value, letter.headers, topic)
