"""Between Kafka records and the core: verify and decode commands (or dead-letter them), build the records to
publish."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.input_position import Output
from shared.events import DecodeError, Envelope, decode, encode
from shared.events import jackpot as jp
from shared.topics import JACKPOT_COMMANDS

from services.jackpot.core.inputs import Incoming

HEADERS = records.headers_for("jackpot")
_COMMANDS = (jp.Contribute, jp.Claim, jp.OpenPool, jp.DisablePool, jp.ResumePool, jp.DecommissionPool)


def to_incoming(record: Any) -> Incoming | tuple[str, str]:
    """A record as the core's input, or (code, reason) when it cannot be read as a jackpot command (or an internal
    command's trusted writer, the spin service, did not send it)."""
    problem = records.provenance_problem(JACKPOT_COMMANDS, record.headers, record.value)
    if problem is not None:
        return records.UNTRUSTED_WRITER, problem
    try:
        command = decode(record.value, expect_kind="command")
    except DecodeError as error:
        return "UNDECODABLE", str(error)
    if not isinstance(command.data, _COMMANDS):
        return "WRONG_TOPIC", f"{command.type} is not a jackpot command"
    if record.key is not None and record.key != command.key:
        return "WRONG_KEY", f"record key {record.key!r} is not the network id {command.key!r}"
    return Incoming(command, record.timestamp, position=record)


def event_record(event: Envelope[Any]) -> Output:
    return Output(False, event.key, encode(event), list(HEADERS))


def dead_letter_record(record: Any, code: str, reason: str) -> Output:
    """The original bytes, untouched, with why they were refused and where they came from."""
    letter = records.dead_letter(JACKPOT_COMMANDS, record.topic, record, code=code, reason=reason, consumer="jackpot")
    return Output(True, letter.key, letter.value, letter.headers)
