"""From raw records to facts: set aside what the topic's owner did not write, decode the rest, collapse byte-identical
redeliveries, flag id conflicts."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.audit.core.findings import Discrepancy
from shared.events import DecodeError, Envelope
from shared.events.batch import is_packed
from shared.events.codec import decode_all, encode
from services.audit.core.trust import impersonation
from shared.invariant import invariant
from shared.records import provenance_problems


@dataclass(frozen=True)
class RawRecord:
    """One Kafka record as read: `topic` is the contract name (e.g. "wallet.events"), not the prefixed name."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...] = ()

    @property
    def where(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"


@dataclass(frozen=True)
class Fact:
    """One distinct decoded event (the first copy of its id), with where and when the broker stored it."""

    topic: str
    where: str
    timestamp_ms: int
    envelope: Envelope[Any]
    partition: int = 0
    offset: int = 0
    data: Any = field(init=False, repr=False, compare=False)  # the envelope's payload (read by every rule: kept here)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", self.envelope.data)

    @property
    def id(self) -> str:
        return str(self.envelope.id)


DECODE_TICK = 250


@dataclass(frozen=True)
class Quarantined:
    """A record on an event topic that its owning service did not write: never folded, listed for the auditor."""

    where: str
    problem: str
    timestamp_ms: int


@dataclass
class Facts:
    """Every distinct fact in read order (per topic-partition order is kept), plus what could not be read."""

    facts: list[Fact] = field(default_factory=list)
    discrepancies: list[Discrepancy] = field(default_factory=list)
    redeliveries: int = 0
    records: int = 0
    quarantined: list[Quarantined] = field(default_factory=list)
    # event id -> (digest of the first copy's bytes, where, broker time): what a redelivery is compared with
    seen: dict[str, tuple[bytes, str, int]] = field(default_factory=dict)

    def of_type(self, *types: type) -> list[Fact]:
        return [fact for fact in self.facts if isinstance(fact.data, types)]


def value_digest(value: bytes | None) -> bytes:
    """What two copies of an event id are compared by (equal digests: byte-identical, a redelivery)."""
    return hashlib.blake2b(value or b"", digest_size=16).digest()


def collect(
    records: list[RawRecord],
    until_ms: int | None = None,
    decoded: Callable[[int], None] = lambda count: None,
    seen: dict[str, tuple[bytes, str, int]] | None = None,
    problems: list[str | None] | None = None,
) -> Facts:
    """Decode and de-duplicate by event id. A repeat with identical bytes collapses; different bytes is a conflict.
    `decoded(n)` hears how many records were read so far, every DECODE_TICK records (a progress bar's hook). `seen`:
    the ids already read before these records (an audit resumed from a checkpoint). `problems`: each record's
    provenance problem as `shared.records.provenance_problems` gave it (the reader checks them as they arrive), else
    checked here."""
    result = Facts(seen=dict(seen or {}))
    if problems is None:
        problems = provenance_problems(records)
    invariant(len(problems) == len(records), "one provenance answer per record")
    considered = zip(records, problems)
    if until_ms is not None:
        considered = ((record, problem) for record, problem in considered if record.timestamp_ms <= until_ms)
    for index, (record, problem) in enumerate(considered):
        if index % DECODE_TICK == 0:
            decoded(index)
        result.records += 1
        if problem is not None:
            result.quarantined.append(Quarantined(record.where, problem, record.timestamp_ms))
            finding = impersonation(record, problem)
            if finding is not None:
                result.discrepancies.append(finding)
            continue
        envelopes = _decode(record, result)
        packed = is_packed(record.value)
        for envelope in envelopes:
            _add(result, record, envelope, value_digest(encode(envelope) if packed else record.value))
    return result


def _add(result: Facts, record: RawRecord, envelope: Envelope[Any], digest: bytes) -> None:
    """One decoded event (a batch envelope's items one by one, each compared by its own bytes) as a fact, unless
    its id was read before: a redelivery when byte-identical, else a conflict."""
    event_id = str(envelope.id)
    if event_id in result.seen:
        first_digest, first_where, _ = result.seen[event_id]
        if first_digest == digest:
            result.redeliveries += 1
        else:
            result.discrepancies.append(_conflict(record, envelope, first_where))
        return
    result.seen[event_id] = (digest, record.where, record.timestamp_ms)
    result.facts.append(
        Fact(record.topic, record.where, record.timestamp_ms, envelope, record.partition, record.offset)
    )


def _decode(record: RawRecord, result: Facts) -> tuple[Envelope[Any], ...]:
    """The record's events in order (one, or a batch envelope's items: shared/events/batch.py); none when it does not
    decode (a discrepancy)."""
    try:
        return decode_all(record.value)
    except DecodeError as error:
        result.discrepancies.append(
            Discrepancy(
                "undecodable-record",
                record.where,
                f"{error.field}: {error.reason}",
                where=record.where,
                at_ms=record.timestamp_ms,
            )
        )
        return ()


def _conflict(record: RawRecord, envelope: Envelope[Any], first_where: str) -> Discrepancy:
    data = envelope.data
    return Discrepancy(
        "duplicate-event-id",
        f"event {envelope.id}",
        f"{envelope.type} at {record.where} differs from the first copy at {first_where}",
        event_id=str(envelope.id),
        where=record.where,
        at_ms=record.timestamp_ms,
        player_id=getattr(data, "player_id", None),
        network_id=getattr(data, "network_id", None),
    )
