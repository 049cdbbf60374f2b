"""Between Kafka records and the core: decode commands (or dead-letter them), and build the records to publish."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.events import HEADERS, DecodeError, Envelope, decode, encode
from shared.events import jackpot as jp

from services.jackpot.core.inputs import Incoming

_COMMANDS = (jp.Contribute, jp.Claim, jp.OpenPool, jp.DisablePool, jp.ResumePool, jp.DecommissionPool)


@dataclass(frozen=True)
class OutRecord:
    topic: str
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]]
    dead_letter: bool = False  # to jackpot.commands.dlq (carries no input position: shared/input_position.py)


def to_incoming(record: Any) -> Incoming | tuple[str, str]:
    """A record as the core's input, or (code, reason) when it cannot be read as a jackpot command."""
    try:
        command = decode(record.value, expect_kind="command")
    except DecodeError as error:
        return "UNDECODABLE", str(error)
    if not isinstance(command.data, _COMMANDS):
        return "WRONG_TOPIC", f"{command.type} is not a jackpot command"
    if record.key is not None and record.key != command.key:
        return "WRONG_KEY", f"record key {record.key!r} is not the network id {command.key!r}"
    return Incoming(command, record.timestamp, position=record)


def event_record(topic: str, event: Envelope[Any]) -> OutRecord:
    return OutRecord(topic, event.key, encode(event), list(HEADERS))


def dead_letter_record(topic: str, record: Any, code: str, reason: str) -> OutRecord:
    """The original bytes, untouched, with why they were refused and where they came from."""
    headers = [
        ("dlq-code", code.encode()),
        ("dlq-reason", reason.encode()[:1000]),
        ("dlq-source", f"{record.topic}/{record.partition}/{record.offset}".encode()),
    ]
    return OutRecord(topic, record.key, record.value if record.value is not None else b"", headers, dead_letter=True)
