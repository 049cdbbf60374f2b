"""The one path between Kafka records and the services: headers with provenance on everything the platform writes,
the verify hook every consumer and every restore calls, dead letters in one vocabulary, and a guarded type peek.

Provenance today is the writer id (`reelstream-writer`): a record on a service's own topic, or an internal command,
that its trusted writer did not write is quarantined (never applied, never folded, never fatal). The signature
scheme of the trust boundary (docs/security.md) plugs into `provenance_problem` without changing its callers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson

from shared import dead_letters
from shared.events.envelope import CONTENT_TYPE
from shared.headers import CONTENT_TYPE as CONTENT_TYPE_HEADER
from shared.headers import ORIGINAL_WRITER, WRITER
from shared.events.errors import DecodeError
from shared.events.jackpot import Claim, Contribute
from shared.events.wallet import DebitWager, RefundWager, SettleWager
from shared.topics import (
    JACKPOT_COMMANDS,
    JACKPOT_EVENTS,
    JACKPOT_METERS,
    JACKPOT_SNAPSHOTS,
    MONITOR_ALERTS,
    SPIN_EVENTS,
    SPIN_JACKPOT_ANSWERS,
    SPIN_JOURNAL,
    SPIN_SNAPSHOTS,
    WALLET_COMMANDS,
    WALLET_EVENTS,
    WALLET_SNAPSHOTS,
    dlq_name,
)

Headers = list[tuple[str, bytes]]

# The writing service of every topic the platform writes itself (a topic's owner), by logical topic name.
OWNERS: dict[str, str] = {
    SPIN_EVENTS: "spin",
    SPIN_JOURNAL: "spin",
    SPIN_JACKPOT_ANSWERS: "spin",
    WALLET_EVENTS: "wallet",
    JACKPOT_EVENTS: "jackpot",
    JACKPOT_METERS: "jackpot",
    MONITOR_ALERTS: "monitor",
    SPIN_SNAPSHOTS: "spin",
    WALLET_SNAPSHOTS: "wallet",
    JACKPOT_SNAPSHOTS: "jackpot",
}
# Commands only a service may send, by type: the money path's internal commands come from the spin service only.
INTERNAL_COMMANDS: dict[str, str] = {
    command.TYPE: "spin" for command in (DebitWager, SettleWager, RefundWager, Contribute, Claim)
}
# Command topics whose internal commands are checked (the cashier's and operator's commands come from outside).
COMMAND_TOPICS = frozenset({WALLET_COMMANDS, JACKPOT_COMMANDS})
UNTRUSTED_WRITER = "UNTRUSTED_WRITER"


def headers_for(writer: str, extra: Iterable[tuple[str, bytes]] = ()) -> Headers:
    """The headers of every record `writer` produces: the CloudEvents content type and who wrote it."""
    return [(CONTENT_TYPE_HEADER, CONTENT_TYPE.encode()), (WRITER, writer.encode()), *extra]


def headers_as_owner(logical_topic: str, stand_in: str) -> Headers:
    """Headers of a tool or test that writes a service's topic in its place (synthetic histories, benchmarks):
    the topic owner's writer id, else `stand_in`."""
    return headers_for(OWNERS.get(logical_topic, stand_in))


def writer_of(headers: Sequence[tuple[str, bytes | None]] | None) -> str | None:
    for key, value in headers or ():
        if key == WRITER and value is not None:
            return value.decode(errors="replace")
    return None


def provenance_problem(
    logical_topic: str, headers: Sequence[tuple[str, bytes | None]] | None, value: bytes | None = None
) -> str | None:
    """Why a consumed record must not be trusted, or None. Called on every consumed record and every restore."""
    owner = OWNERS.get(logical_topic)
    if owner is not None:
        return _written_by(owner, headers)
    if logical_topic in COMMAND_TOPICS:
        sender = INTERNAL_COMMANDS.get(peek_type(value) or "")
        return None if sender is None else _written_by(sender, headers)
    return None


def _written_by(expected: str, headers) -> str | None:
    writer = writer_of(headers)
    if writer == expected:
        return None
    if writer:
        return f"written by {writer!r}, only {expected!r} writes this"
    return f"no writer id; only {expected!r} writes this"


def peek_type(value: bytes | None) -> str | None:
    """The CloudEvents `type` of a record when it is a JSON object with a string type, else None (never raises)."""
    if not value:
        return None
    try:
        raw = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    type_ = raw.get("type") if isinstance(raw, dict) else None
    return type_ if isinstance(type_, str) else None


@dataclass(frozen=True)
class DeadLetter:
    """A refused record, bytes untouched, for `<source topic>.dlq` (logical name: the caller adds its prefix)."""

    topic: str
    key: bytes | None
    value: bytes
    headers: Headers


def dead_letter(
    logical_topic: str, physical_topic: str, record, *, code: str, reason: str, field: str = "$", consumer: str
) -> DeadLetter:
    """`record` has key, value, partition, offset and headers (an aiokafka or kafka-python record). The dead letter's
    headers are complete: written by `consumer`, with the original writer (if any) kept as ORIGINAL_WRITER."""
    original = [(k, v) for k, v in (record.headers or ()) if v is not None and k not in (WRITER, CONTENT_TYPE_HEADER)]
    claimed = writer_of(record.headers)
    if claimed is not None:
        original.append((ORIGINAL_WRITER, claimed.encode()))
    headers = dead_letters.refusal_headers(
        code,
        reason,
        field,
        topic=physical_topic,
        partition=record.partition,
        offset=record.offset,
        consumer=consumer,
        original=headers_for(consumer, original),
    )
    value = redacted(record.value) if record.value is not None else b""
    return DeadLetter(dlq_name(logical_topic), record.key, value, headers)


# A bearer token as a JSON string value, wherever the record puts it (the record may be no valid JSON at all).
_TOKEN_FIELD = re.compile(rb'("session_token"\s*:\s*")((?:[^"\\]|\\.)*)(")')


def redacted(value: bytes) -> bytes:
    """The record's bytes with every session token replaced by its SHA-256: dead letters are kept forever, bearer
    tokens must not be (the hash still lets ops match a dead letter to a client's log)."""
    if b"session_token" not in value:
        return value
    return _TOKEN_FIELD.sub(
        lambda m: m.group(1) + b"sha256:" + hashlib.sha256(m.group(2)).hexdigest().encode() + m.group(3), value
    )


def undecodable(logical_topic: str, physical_topic: str, record, error: DecodeError, *, consumer: str) -> DeadLetter:
    return dead_letter(
        logical_topic,
        physical_topic,
        record,
        code="UNDECODABLE",
        reason=error.reason,
        field=error.field,
        consumer=consumer,
    )


def quarantined(logical_topic: str, physical_topic: str, record, problem: str, *, consumer: str) -> DeadLetter:
    return dead_letter(logical_topic, physical_topic, record, code=UNTRUSTED_WRITER, reason=problem, consumer=consumer)
