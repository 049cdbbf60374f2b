"""Between Kafka records and the core: verify and decode commands (or dead-letter them), build the records to
publish."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.input_position import Output
from shared.events import DecodeError, Envelope, encode
from shared.topics import JACKPOT_COMMANDS

from services.jackpot.core.inputs import Incoming

HEADERS = records.headers_for("jackpot")


def to_incoming(record: Any) -> Incoming | tuple[str, str]:
    """A record as the core's input, or (code, reason) when it cannot be read as a jackpot command (or an internal
    command's trusted writer, the spin service, did not send it)."""
    problem = records.provenance_problem(JACKPOT_COMMANDS, record.headers, record.value, record.key)
    if problem is not None:
        return records.UNTRUSTED_WRITER, problem
    try:
        command = records.decode_on(JACKPOT_COMMANDS, record.value, record.key, keyless=True)
    except records.Misfit as error:
        return error.code, error.reason
    except DecodeError as error:
        return "UNDECODABLE", str(error)
    return Incoming(command, record.timestamp, position=record)


def event_record(event: Envelope[Any]) -> Output:
    return Output(False, event.key, encode(event), list(HEADERS))


def dead_letter_record(record: Any, code: str, reason: str) -> Output:
    """The original bytes, untouched, with why they were refused and where they came from."""
    letter = records.dead_letter(JACKPOT_COMMANDS, record.topic, record, code=code, reason=reason, consumer="jackpot")
    return Output(True, letter.key, letter.value, letter.headers)
