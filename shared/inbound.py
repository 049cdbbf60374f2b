"""How the loop reads a consumed record, once: the guards, provenance and decode of shared/records.py in one pass give
the service a Message (the decoded payload and who vouches for it) or one typed refusal (docs/architecture.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared import observability, records
from shared.decision import Message, Packed, Refusal, Undecodable
from shared.events import DecodeError, may_be
from shared.input_position import Output
from shared.events.batch import is_packed
from shared.partitioning import misplaced
from shared.topics import DLQ_TOPICS, dlq_name

# What a refused record becomes: a dead letter with its reason (an input an outside role writes, the money path's
# commands), or a quarantine with an alert (a service's own facts another reads: never applied, never fatal).
DEAD_LETTER, QUARANTINE = "dead-letter", "quarantine"
# Whom an undecodable record's answer goes to: nobody, its data's player (on this partition), or else its key's.
NOBODY, DATA, DATA_OR_KEY = "nobody", "data", "data-or-key"
DEAD_LETTER_TOPICS = frozenset(spec.name for spec in DLQ_TOPICS)


@dataclass(frozen=True)
class Input:
    """One input topic of a service as the loop reads it (`logical`: its declared name)."""

    logical: str
    kind: str = "command"  # the codec's expect_kind: commands strictly, events tolerantly
    # The types the service reads (empty: all): a record certainly of another type is none of its business.
    types: frozenset[str] = frozenset()
    # A cheaper judgement on the bytes and the partition's state, before any decode or signature check, that a
    # record is none of the service's business (the spin's combined debits); None: every record is read.
    skip: Callable[[Any, bytes | None], bool] | None = None
    # A topic anyone may write: no writer is checked, only that its header set is one the platform reads (a header
    # set that is not makes the record undecodable, answered like one).
    public: bool = False
    check_key: bool = True  # a command's record key must be its subject
    untrusted: str = DEAD_LETTER  # what a record nobody trusted wrote, or one off its key's partition, becomes
    misplaced: str = DEAD_LETTER  # DEAD_LETTER, QUARANTINE, or None: the message says so and its core answers
    answer: str = NOBODY  # whom an undecodable record names
    # The topic an undecodable record's cause names (ids of its answer derive from it): its physical name or logical.
    cause_physical: bool = False
    proofs: bool = False  # its records carry the jackpot's signed JackpotWon (spin.jackpot-answers)
    awards: bool = False  # its settlements carry JackpotWons, decoded and judged here (wallet.internal)
    # Its writer's loop packs commands of a type the contract says may be packed (shared/events/batch.py): such a
    # record is one Message whose payload is a Packed of its items (a public topic never is: no writer packs there).
    packed: bool = False
    # Whether a record it cannot decode is its to refuse; False where another service reads the topic too and owns
    # such records (the record is then none of this one's business), so one bad record makes one dead letter.
    owns_undecodable: bool = True


@dataclass(frozen=True)
class Inbound:
    """A record as the loop read it: the Message for the core, else the refusal (`how`: DEAD_LETTER or QUARANTINE),
    else neither (none of the service's business). `record` stays with the loop and the service's adapter."""

    record: Any
    input: Input
    message: Message | None = None
    refusal: Refusal | None = None
    how: str | None = None


def read(spec: Input, record: Any, partitions: int | None, state: Any = None) -> Inbound:
    """The record read once: its type filter, then one decode, then its provenance and placement (a refusal of those
    wins over the decode's), then the message. `partitions`: the input's partition count (None or 0: unknown);
    `state`: the partition's state, for `spec.skip`."""
    value = record.value
    if spec.types and not may_be(value, spec.types):
        return Inbound(record, spec)
    if spec.skip is not None and spec.skip(state, value):
        return Inbound(record, spec)
    payload, error = _decoded(spec, record)
    writer = operator = None
    if not spec.public:
        type_ = payload.type if payload is not None else None
        writer, problem = records.provenance(spec.logical, record.headers, value, record.key, type_=type_)
        if problem is not None:
            return Inbound(record, spec, refusal=Refusal(records.UNTRUSTED_WRITER, problem), how=spec.untrusted)
        operator = records.cashier_operator(spec.logical, value, writer, type_=type_)
    placed = payload is not None or not spec.public  # a broken public record is answered wherever it sits
    wrong = records.placement_problem(spec.logical, record, partitions) if placed else None
    if wrong is not None and spec.misplaced is not None:
        return Inbound(record, spec, refusal=Refusal(records.WRONG_PARTITION, wrong), how=spec.misplaced)
    if payload is None and not spec.owns_undecodable:
        return Inbound(record, spec)
    key = record.key.decode(errors="replace") if record.key is not None else None
    proof = records.forwarded_proof(record) if spec.proofs else None
    if spec.awards and payload is not None:
        proof = records.checked_awards(payload.data)
    found = payload if payload is not None else _undecodable(spec, record, error, partitions)
    message = Message(found, record.timestamp, writer, operator, proof, key, wrong, _cause(spec, record, False))
    return Inbound(record, spec, message)


def _decoded(spec: Input, record: Any) -> tuple[Any, DecodeError | None]:
    """The decoder's one call for this record: (the envelope, None) or (None, why not)."""
    try:
        if spec.kind == "command" and spec.packed and is_packed(record.value):
            found = Packed(records.decode_packed_on(spec.logical, record.value, record.key, check_key=spec.check_key))
        elif spec.kind == "command":
            headers = record.headers if spec.public else None
            found = records.decode_on(spec.logical, record.value, record.key, check_key=spec.check_key, headers=headers)
        else:
            found = records.decode_event(record.value)
    except DecodeError as error:
        return None, error
    return found, None


def _undecodable(spec: Input, record: Any, error: DecodeError | None, partitions: int | None) -> Undecodable:
    assert error is not None, "a record is decoded or refused with a reason"
    player_id = None
    if spec.answer != NOBODY:
        player_id = error.readable_player(record.key, or_key=spec.answer == DATA_OR_KEY)
    if spec.answer == DATA and player_id is not None and partitions:
        if misplaced(player_id.encode(), record.partition, partitions):  # its rejection would land off its book
            player_id = None
    return Undecodable(error, player_id, _cause(spec, record, spec.cause_physical))


def _cause(spec: Input, record: Any, physical: bool) -> tuple[Any, ...]:
    return (record.topic if physical else spec.logical, record.partition, record.offset)


def refused(found: Inbound, consumer: str, commands_topic: str) -> Output | None:
    """What a refused record becomes: its dead letter, or None once it is quarantined (logged as an alert)."""
    assert found.refusal is not None, "only a refused record is dead-lettered or quarantined"
    if found.how == QUARANTINE:
        return _quarantined(found, found.refusal, consumer)
    return dead_letter(found, found.refusal, consumer, commands_topic)


def _quarantined(found: Inbound, refusal: Refusal, consumer: str) -> None:
    record = found.record
    where = (record.topic, record.partition, record.offset, refusal.code, refusal.reason)
    log = logging.getLogger(f"reelstream.{consumer}")
    observability.alert(log, "quarantined", "%s/%d/%d quarantined, not applied: %s %s", *where)


def dead_letter(inbound: Inbound, refusal: Refusal, consumer: str, commands_topic: str | None) -> Output | None:
    """The refused record, bytes untouched, as the record for its own topic's DLQ (`topic` None: the loop's commands
    topic's; with `commands_topic` None, always named); None once quarantined instead, for a topic that has no DLQ."""
    record, logical = inbound.record, inbound.input.logical
    if dlq_name(logical) not in DEAD_LETTER_TOPICS:
        # A service's own facts topic keeps every record forever and has no DLQ (a send there would stop the loop):
        # the record stays where it is, named by the alert.
        return _quarantined(inbound, refusal, consumer)
    code, reason, field = refusal.code, refusal.reason, refusal.field
    letter = records.dead_letter(
        logical, record.topic, record, code=code, reason=reason, field=field, consumer=consumer
    )
    topic = None if record.topic == commands_topic else records.physical_dlq(record.topic, logical)
    return Output(True, letter.key, letter.value, letter.headers, topic)
