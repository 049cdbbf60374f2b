"""Between Kafka records and the core: verify and decode commands of jackpot.commands (the operator's) and
jackpot.internal (the spin service's), or dead-letter them to their own topic's DLQ; build the records to publish."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.input_position import Output
from shared.events import DecodeError, Envelope, encode
from shared.topics import JACKPOT_COMMANDS, JACKPOT_INTERNAL

from services.jackpot.core.inputs import Incoming

HEADERS = records.headers_for("jackpot")


def to_incoming(record: Any, partitions: int | None = None) -> Incoming | tuple[str, str]:
    """A record as the core's input, or (code, reason) when it cannot be read as a jackpot command (or an internal
    command's trusted writer, the spin service, did not send it, or it is not keyed by its network or not on that
    key's partition: `partitions`, the topic's partition count, None: not known yet)."""
    logical = logical_topic(record)
    problem = records.provenance_problem(logical, record.headers, record.value, record.key)
    if problem is not None:
        return records.UNTRUSTED_WRITER, problem
    wrong = records.placement_problem(logical, record, partitions)
    if wrong is not None:
        return records.WRONG_PARTITION, wrong
    try:
        command = records.decode_on(logical, record.value, record.key)
    except records.Misfit as error:
        return error.code, error.reason
    except DecodeError as error:
        return "UNDECODABLE", str(error)
    return Incoming(command, record.timestamp, position=record)


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
