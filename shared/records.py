"""The one path between Kafka records and the services: provenance headers and signatures on everything the platform
writes, the verify hook every consumer calls, dead letters, and a guarded type peek (docs/architecture.md)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from shared import dead_letters, operators, signing
from shared.dead_letters import REDRIVE, SHRUNK_KEY, SHRUNK_VALUE
from shared.events.envelope import CONTENT_TYPE
from shared.headers import CONTENT_TYPE as CONTENT_TYPE_HEADER
from shared.headers import JACKPOT_PROOF, ORIGINAL_WRITER, REFUSED_BATCH, WRITER
from shared.events.codec import decode_all, decode_one_pass
from shared.events.envelope import Envelope
from shared.events.errors import DecodeError
from shared.decision import CheckedAward
from shared.events.jackpot import Claim, Contribute, DecommissionPool, DisablePool, JackpotWon, OpenPool, ResumePool
from shared.events.wallet import (
    DebitWager,
    PlaceWager,
    Deposit,
    JackpotWonProof,
    ProofHeader,
    RefundWager,
    SelfExclude,
    SetLimit,
    SettleWager,
    Withdraw,
)
from shared.partitioning import misplaced
from shared.topics import (
    ALL_TOPICS,
    ANSWER_TOPICS,
    JACKPOT_COMMANDS,
    JACKPOT_EVENTS,
    JACKPOT_INTERNAL,
    JACKPOT_METERS,
    JACKPOT_SNAPSHOTS,
    MONITOR_ALERTS,
    SEAMLESS_SAGA,
    SPIN_EVENTS,
    SPIN_JACKPOT_ANSWERS,
    SPIN_JOURNAL,
    SPIN_SNAPSHOTS,
    WALLET_COMMANDS,
    WALLET_EVENTS,
    WALLET_INTERNAL,
    WALLET_SEAMLESS,
    WALLET_SEAMLESS_CALLS,
    WALLET_SNAPSHOTS,
    SOURCE_MAX_MESSAGE_BYTES,
    dlq_name,
)

Headers = list[tuple[str, bytes]]

# The writing service of every topic the platform writes itself (a topic's owner), by logical topic name.
OWNERS: dict[str, str] = {
    SPIN_EVENTS: "spin",
    SPIN_JOURNAL: "spin",
    SPIN_JACKPOT_ANSWERS: "jackpot",  # the claims' answers, copied by the jackpot in its transactions
    WALLET_EVENTS: "wallet",
    WALLET_SEAMLESS: SEAMLESS_SAGA,  # the saga's record of a seamless operator's rounds (docs/seamless.md)
    WALLET_SEAMLESS_CALLS: SEAMLESS_SAGA,
    JACKPOT_EVENTS: "jackpot",
    JACKPOT_METERS: "jackpot",
    MONITOR_ALERTS: "monitor",
    SPIN_SNAPSHOTS: "spin",
    WALLET_SNAPSHOTS: "wallet",
    JACKPOT_SNAPSHOTS: "jackpot",
    WALLET_INTERNAL: "spin",  # the money path's internal commands: the broker lets only the spin service write them
    JACKPOT_INTERNAL: "spin",
    # each operator's copies of the spin's answers (spin.answers.<O>) and of the wallet's (wallet.answers.<O>)
    **{spec.name: spec.writers[0] for spec in ANSWER_TOPICS},
}
# Commands only a service may send, by type: the money path's internal commands come from the spin service only.
INTERNAL_COMMANDS: dict[str, str] = {
    command.TYPE: "spin" for command in (DebitWager, PlaceWager, SettleWager, RefundWager, Contribute, Claim)
}
# Commands from outside roles that move money or pools: signed by the cashier's and the operator's keys.
SIGNED_COMMANDS: dict[str, str] = {
    **{command.TYPE: "cashier" for command in (Deposit, Withdraw, SetLimit, SelfExclude)},
    **{command.TYPE: "operator" for command in (OpenPool, DisablePool, ResumePool, DecommissionPool)},
}
# Command topics whose internal commands are checked (the cashier's and operator's commands come from outside); the
# internal topics' records are checked as their owner's (OWNERS).
COMMAND_TOPICS = frozenset({WALLET_COMMANDS, JACKPOT_COMMANDS, WALLET_INTERNAL, JACKPOT_INTERNAL})
# Migration, one release (docs/security.md): the internal commands moved from these public topics to the internal
# ones, and the old topic still accepts them from spin services not yet upgraded (only with the spin service's
# signature, as before). The switch-off empties this map (and drops "spin" from the old topics' writers in
# shared/topics.py): the old topics then refuse them WRONG_TOPIC, as the internal topics refuse a public type.
MOVED_FROM: dict[str, str] = {WALLET_COMMANDS: WALLET_INTERNAL, JACKPOT_COMMANDS: JACKPOT_INTERNAL}
UNTRUSTED_WRITER = "UNTRUSTED_WRITER"
WRONG_TOPIC, WRONG_KEY = "WRONG_TOPIC", "WRONG_KEY"
WRONG_PARTITION = "WRONG_PARTITION"
# Topics keyed by player id (co-partitioned: the player's book) or network id (one partition orders a network's pools):
# a record must sit on its key's murmur2 partition.
KEYED = frozenset(
    topic.name for topic in ALL_TOPICS if topic.key in ("player id", "network id") and topic.kind != "dlq"
)
# Headers a check or a decision reads (who wrote the record, its signature, a re-drive, its content type, the
# jackpot's proof): each at most once, or which copy counts would depend on who reads first. (`traceparent` only
# parents a span, and the tracer reads any bytes.)
READ_ONCE = frozenset(
    {WRITER, CONTENT_TYPE_HEADER, ORIGINAL_WRITER, REDRIVE, JACKPOT_PROOF, *signing.SIGNATURE_HEADERS}
)
# More headers than any record the platform writes carries (~8); a dead letter copies at most MAX_COPIED_HEADERS of
# the refused record's (the rest counted and digested, shared/dead_letters.py), so it stays readable with its ~12 own.
MAX_HEADERS = 64
MAX_COPIED_HEADERS = 32
# What a dead letter carries of a refused record, at most: its value unchanged up to the source topic's limit (every
# record that can decode is smaller, MAX_RECORD_BYTES), its key and copied headers up to DEAD_LETTER_KEY_BYTES each;
# a record from a compressed batch can hold more (up to MAX_INFLATED_BYTES), which is kept compressed or cut, with its
# length and digest (shared/dead_letters.py: shrunk). A dead letter so stays within its topic's DLQ_MAX_MESSAGE_BYTES.
DEAD_LETTER_VALUE_BYTES = SOURCE_MAX_MESSAGE_BYTES
DEAD_LETTER_KEY_BYTES = DEAD_LETTER_HEADER_BYTES = 64 * 1024


def headers_for(writer: str, extra: Iterable[tuple[str, bytes]] = ()) -> Headers:
    """The headers of every record `writer` produces: the CloudEvents content type and who wrote it."""
    return [(CONTENT_TYPE_HEADER, CONTENT_TYPE.encode()), (WRITER, writer.encode()), *extra]


def signed_headers(
    writer: str, logical_topic: str, key: bytes | None, value: bytes | None, extra: Iterable[tuple[str, bytes]] = ()
) -> Headers:
    """`headers_for(writer)` signed alone by `writer`'s key when the environment has one (shared/signing.py): what a
    cashier, an operator, or a tool standing in for a service writes."""
    return signing.sign_one(writer, logical_topic, key, value, headers_for(writer, extra))


def headers_as_owner(
    logical_topic: str, stand_in: str, key: bytes | None = None, value: bytes | None = None
) -> Headers:
    """Headers of a tool or test that writes a record in its trusted writer's place (synthetic histories, benchmarks,
    test harnesses): that writer's id, else `stand_in`; signed with the writer's key when given the record's value
    and the environment has a signing directory."""
    return stand_in_batch([(logical_topic, key, value)], stand_in)[0]


STAND_IN_CHUNK = 1000  # records per signature of a stand-in batch (its inclusion paths stay ~10 steps)


def stand_in_batch(items: Sequence[tuple[str, bytes | None, bytes | None]], stand_in: str) -> list[Headers]:
    """`headers_as_owner` for many (logical topic, key, value) records, signed in chunks of one signature each (a
    benchmark's verifier then does one Ed25519 check per chunk, as with the services' own transactions)."""
    writers = [trusted_writer(topic, value) or stand_in for topic, _, value in items]
    headers: list[Headers] = [headers_for(writer) for writer in writers]
    for writer in set(writers):
        chosen = signing.signer(writer) if writer in signing.WRITERS else None
        mine = [i for i, w in enumerate(writers) if w == writer and items[i][2] is not None]
        for start in range(0, len(mine) if chosen is not None else 0, STAND_IN_CHUNK):
            chunk = mine[start : start + STAND_IN_CHUNK]
            signed = chosen.sign([signing.Item(*items[i], headers[i]) for i in chunk])
            for index, done in zip(chunk, signed):
                headers[index] = done
    return headers


def trusted_writer(logical_topic: str, value: bytes | None) -> str | None:
    """Who alone may write (and sign) this record: its topic's owner, or its command type's sender."""
    return _trusted(logical_topic, value)[0]


def _trusted(logical_topic: str, value: bytes | None, decoded: str | None = None) -> tuple[str | None, bool]:
    """Who must have signed this record (None: anyone may write it), and whether its writer id must name them too
    (a topic's owner, the spin service's internal commands; the cashier's and operator's commands are signed only).
    `decoded`: the record's type when the loop decoded it already (the bytes are not read again)."""
    owner = OWNERS.get(logical_topic)
    if owner is not None:
        return owner, True
    if logical_topic in COMMAND_TOPICS:
        type_ = decoded or peek_type(value) or ""
        sender = INTERNAL_COMMANDS.get(type_)
        return (sender, True) if sender is not None else (SIGNED_COMMANDS.get(type_), False)
    return None, False


def cashier_operator(
    logical_topic: str, value: bytes | None, signer: str | None, *, type_: str | None = None
) -> str | None:
    """The operator a cashier command is bound to: the one whose cashier key (`cashier.<O>`) signed it, `signer` as
    `provenance` found it (never read from the headers a second time); None for the plain cashier's key or any other
    record. `type_`: the record's type when decoded already (else peeked from `value`)."""
    if _trusted(logical_topic, value, type_)[0] != "cashier":
        return None
    return operators.cashier_operator(signer)


def writer_of(headers: Sequence[tuple[str, bytes | None]] | None) -> str | None:
    for key, value in headers or ():
        if key == WRITER and value is not None:
            return value.decode(errors="replace")
    return None


def provenance(
    logical_topic: str,
    headers: Sequence[tuple[str, bytes | None]] | None,
    value: bytes | None = None,
    key: bytes | None = None,
    *,
    type_: str | None = None,
) -> tuple[str | None, str | None]:
    """(who vouches for the record, why it must not be trusted or None), one answer for both: the writer whose key
    signed it (without a key ring, its writer id), None where anyone may write the record. Called on every consumed
    record and every restore; a header set the platform would not write is never trusted, whoever wrote it. `type_`:
    the record's type when decoded already."""
    problem = header_problem(headers)
    if problem is not None:
        return None, problem
    expected, named = _trusted(logical_topic, value, type_)
    if expected is None:
        return None, None
    written = _written_by(expected, headers) if named else None
    if written is not None:
        return None, written
    ring = signing.ring()
    if ring is None:
        return writer_of(headers), None
    return ring.verify(expected, logical_topic, key, value, headers)


def provenance_problem(
    logical_topic: str,
    headers: Sequence[tuple[str, bytes | None]] | None,
    value: bytes | None = None,
    key: bytes | None = None,
) -> str | None:
    """Why a consumed record must not be trusted, or None (`provenance`'s second half)."""
    return provenance(logical_topic, headers, value, key)[1]


def header_problem(headers: Sequence[tuple[str, bytes | None]] | None) -> str | None:
    """Why a record's header set is none the platform reads: more than MAX_HEADERS headers, a name that is not UTF-8
    (the consumers' record parser keeps such a name's bytes as surrogates, shared/record_batches.py), the mark of a
    batch that parser refused whole (REFUSED_BATCH: it inflates past its bound or does not decompress; the record's
    value is the batch as fetched), or a READ_ONCE header more than once. None for a header set the checks can read
    unambiguously."""
    if not headers:
        return None
    if len(headers) > MAX_HEADERS:
        return f"{len(headers)} headers, more than {MAX_HEADERS}"
    seen: set[str] = set()
    for name, content in headers:
        if not name.isascii() and not _utf8(name):
            return f"a header name is not UTF-8: {shown_name(name)}"
        if name == REFUSED_BATCH:
            return f"the record's batch was refused: {(content or b'').decode(errors='replace')[:200]}"
        if name in READ_ONCE:
            if name in seen:
                return f"header {name!r} appears more than once"
            seen.add(name)
    return None


def _utf8(name: str) -> bool:
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """A header name as printable text whatever its bytes (its non-UTF-8 bytes as \\x escapes), at most 80 long."""
    return repr(name.encode(errors="surrogateescape")[:80])


def provenance_problems(records: Sequence[Any], nodes: dict | None = None) -> list[str | None]:
    """`provenance_problem` of each record (anything with the logical `topic`, `headers`, `value` and `key`), the same
    answers, for many records at once (the audit's reads): the signatures are checked together by the key ring
    (`KeyRing.problems`, which hashes the Merkle nodes a transaction's records share once; `nodes`: its memory of them,
    for a history checked piece by piece)."""
    ring = signing.ring()
    problems: list[str | None] = []
    signed: list[int] = []
    checks: list[signing.Check] = []
    for index, record in enumerate(records):
        expected, named = _trusted(record.topic, record.value)
        problem = header_problem(record.headers)
        if problem is None and expected is not None and named:
            problem = _written_by(expected, record.headers)
        problems.append(problem)
        if expected is not None and problem is None and ring is not None:
            signed.append(index)
            checks.append((expected, record.topic, record.key, record.value, record.headers))
    for index, problem in zip(signed, ring.problems(checks, nodes) if checks else ()):
        problems[index] = problem
    return problems


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


class Misfit(DecodeError):
    """A valid message on the wrong topic or under the wrong key: `code` says which (WRONG_TOPIC, WRONG_KEY)."""

    def __init__(self, code: str, field: str, reason: str, raw) -> None:
        super().__init__(field, reason, raw)
        self.code = code


def decode_on(
    logical_topic: str,
    value: bytes | None,
    key: bytes | None,
    *,
    check_key: bool = True,
    keyless: bool = False,
    moved: Mapping[str, str] = MOVED_FROM,
    headers: Sequence[tuple[str, bytes | None]] | None = None,
) -> Envelope:
    """A command of `logical_topic` (every guard of the codec), whose type belongs there (or moved from there to
    `moved[logical_topic]`: the migration) and, with `check_key`, whose record key is its subject (`keyless`: or no
    key at all); with `headers` (a topic anyone may write, whose records no provenance check reads), whose header set
    passes `header_problem`. Raises DecodeError (a Misfit for the two before)."""
    problem = header_problem(headers)
    if problem is not None:
        raise DecodeError("headers", problem)
    message = decode_one_pass(value, expect_kind="command")
    if message.data.TOPIC != logical_topic and message.data.TOPIC != moved.get(logical_topic):
        raise Misfit(WRONG_TOPIC, "type", f"{message.type} does not belong on {logical_topic}", orjson.loads(value))
    if check_key and key != message.key and not (keyless and key is None):
        reason = f"the record key {key!r} is not the subject {message.key!r}"
        raise Misfit(WRONG_KEY, "subject", reason, orjson.loads(value))
    return message


def decode_packed_on(
    logical_topic: str, value: bytes | None, key: bytes | None, *, check_key: bool = True
) -> tuple[Envelope, ...]:
    """The commands of a packed record of `logical_topic` (shared/events/batch.py), in order: every guard of
    `decode_on` on each item (a Misfit names the item), and a type the topic's writer may pack. Raises DecodeError."""
    messages = decode_all(value, expect_kind="command")
    for index, message in enumerate(messages):
        if message.data.TOPIC != logical_topic or not message.data.PACKABLE:
            reason = f"{message.type} is not packed on {logical_topic}"
            raise Misfit(WRONG_TOPIC, f"items.{index}.type", reason, None)
        if check_key and key != message.key:
            reason = f"the record key {key!r} is not the subject {message.key!r}"
            raise Misfit(WRONG_KEY, f"items.{index}.subject", reason, None)
    return messages


def decode_event(value: bytes | None) -> Envelope:
    """An event of a topic its owner writes (every guard of the codec, unknown fields ignored). Raises DecodeError."""
    return decode_one_pass(value, expect_kind="event")


@dataclass(frozen=True)
class DeadLetter:
    """A refused record, bytes untouched, for `<source topic>.dlq` (logical name: the caller adds its prefix; the
    loop names the physical topic, None: its commands topic's DLQ)."""

    topic: str | None
    key: bytes | None
    value: bytes
    headers: Headers


def dead_letter(
    logical_topic: str, physical_topic: str, record, *, code: str, reason: str, field: str = "$", consumer: str
) -> DeadLetter:
    """`record` has key, value, partition, offset and headers (an aiokafka or kafka-python record). The dead letter's
    headers are complete: written by `consumer`, with the original writer (if any) kept as ORIGINAL_WRITER, and every
    other header copied unless past MAX_COPIED_HEADERS or unwritable (shared/dead_letters.py: copyable)."""
    claimed = writer_of(record.headers)
    own = [(ORIGINAL_WRITER, claimed.encode())] if claimed is not None else []
    others = [header for header in record.headers or () if header[0] not in (WRITER, CONTENT_TYPE_HEADER)]
    original = dead_letters.copyable([*own, *others], MAX_COPIED_HEADERS, DEAD_LETTER_HEADER_BYTES, once=READ_ONCE)
    key, key_note = dead_letters.shrunk(record.key, DEAD_LETTER_KEY_BYTES) if record.key else (record.key, None)
    value, value_note = dead_letters.shrunk(redacted(record.value or b""), DEAD_LETTER_VALUE_BYTES)
    notes = [(name, note) for name, note in ((SHRUNK_KEY, key_note), (SHRUNK_VALUE, value_note)) if note]
    headers = dead_letters.refusal_headers(
        code,
        reason,
        field,
        topic=physical_topic,
        partition=record.partition,
        offset=record.offset,
        consumer=consumer,
        original=headers_for(consumer, [*original, *notes]),
    )
    return DeadLetter(dlq_name(logical_topic), key, value, headers)


# A bearer token as a JSON string value, wherever the record puts it (the record may be no valid JSON at all).
_TOKEN_FIELD = re.compile(rb'("session_token"\s*:\s*")((?:[^"\\]|\\.)*)(")')


def redacted(value: bytes) -> bytes:
    """The record's bytes with every session token replaced by its SHA-256: dead letters are kept forever, bearer
    tokens must not be (the hash still lets ops match a dead letter to a client's log). Never longer than the record,
    so a dead letter fits wherever the record did: a token shorter than `sha256:<64 hex>` (no genuine token is) gets
    that text cut to its own length."""
    if b"session_token" not in value:
        return value
    return _TOKEN_FIELD.sub(_hashed_token, value)


def _hashed_token(match: re.Match[bytes]) -> bytes:
    token = match.group(2)
    marker = b"sha256:" + hashlib.sha256(token).hexdigest().encode()
    return match.group(1) + marker[: len(token)] + match.group(3)


def physical_dlq(physical_source: str, logical_source: str) -> str:
    """The dead-letter topic of a record read from `physical_source` (a deployment's prefix + `logical_source`)."""
    return physical_source.removesuffix(logical_source) + dlq_name(logical_source)


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


def placement_problem(logical_topic: str, record, partitions: int | None) -> str | None:
    """Why a record of a player- or network-keyed topic is not on its key's murmur2 partition, or None. Every consumer
    of such a topic calls it (a record elsewhere would meet a book that knows nothing of its player, or a network's
    pools out of their one order); `partitions` is the topic's partition count as the consumer's metadata has it (None
    or 0: not known yet, nothing is checked). A record without a key is the decoder's business (the key must be the
    subject)."""
    if logical_topic not in KEYED or not record.key or not partitions:
        return None
    return misplaced(record.key, record.partition, partitions)


def trusted_event(logical_topic: str, record) -> tuple[object | None, str | None]:
    """(the decoded event, None) of a record its topic's owner wrote and that decodes, else (None, why not): what a
    restore or a tool folding a service's own topic may fold; the rest is quarantined, never fatal."""
    problem = provenance_problem(logical_topic, record.headers, record.value, record.key)
    if problem is not None:
        return None, problem
    try:
        return decode_event(record.value), None
    except DecodeError as error:
        return None, f"unreadable: {error}"


def trusted_events(logical_topic: str, record) -> tuple[tuple[Envelope, ...], str | None]:
    """`trusted_event` for a topic the loop may pack (jackpot.events): (the record's events in order, None), one for
    a single event, every item of a batch envelope (shared/events/batch.py); else ((), why not)."""
    problem = provenance_problem(logical_topic, record.headers, record.value, record.key)
    if problem is not None:
        return (), problem
    try:
        return decode_all(record.value, expect_kind="event"), None
    except DecodeError as error:
        return (), f"unreadable: {error}"


def proof_header(record) -> tuple[str, bytes]:
    """The header on the copy of a JackpotWon (value byte for byte) the jackpot writes to spin.jackpot-answers: the key
    and headers the record has on jackpot.events, its signature included (`forwarded_proof` reads it back)."""
    headers = [
        [name, base64.b64encode(content).decode()] for name, content in record.headers or () if content is not None
    ]
    key = (record.key or b"").decode(errors="replace")
    return JACKPOT_PROOF, orjson.dumps({"key": key, "headers": headers})


def forwarded_proof(record) -> JackpotWonProof | None:
    """The jackpot's signed JackpotWon behind a spin.jackpot-answers record (`proof_header`), or None: another answer,
    or one forwarded without it (the settlement then carries no proof and the wallet refuses its jackpot amount)."""
    found = next((content for name, content in record.headers or () if name == JACKPOT_PROOF), None)
    if found is None or record.value is None:
        return None
    try:
        raw = orjson.loads(found)
        headers = tuple(ProofHeader(name=name, value=content) for name, content in raw["headers"])
        return JackpotWonProof(value=record.value.decode(), key=raw["key"], headers=headers)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):  # pydantic's ValidationError is a ValueError
        return None


def checked_awards(data: Any) -> tuple[CheckedAward, ...] | None:
    """Each JackpotWon a settlement carries, decoded once and its signature judged (`proof_problem`), for the wallet's
    core to weigh; None for a command that carries none."""
    if "jackpot_proofs" not in getattr(type(data), "model_fields", ()):
        return None  # asked of the type: a pydantic model's miss on an instance attribute is slow
    proofs = data.jackpot_proofs
    if not proofs:
        return None
    return tuple(CheckedAward(_award(proof), proof_problem(proof)) for proof in proofs)


def _award(proof: JackpotWonProof) -> JackpotWon | None:
    try:
        data = decode_event(proof.value.encode()).data
    except DecodeError:
        return None
    return data if isinstance(data, JackpotWon) else None


def proof_problem(proof: JackpotWonProof) -> str | None:
    """Why a settlement's JackpotWon is not the jackpot service's record, or None: the verify hook of jackpot.events
    (writer id and, with a key ring, the jackpot's transaction signature under that logical topic), done by the wallet
    on the copy the settlement carries."""
    try:
        headers = [(header.name, base64.b64decode(header.value, validate=True)) for header in proof.headers]
    except (binascii.Error, ValueError):
        return "a header of the JackpotWon is not base64"
    return provenance_problem(JACKPOT_EVENTS, headers, proof.value.encode(), proof.key.encode())
