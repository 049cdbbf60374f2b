"""Dead letters: the one vocabulary of headers that says why and where a record was refused, and the re-drive marker;
every consumer writes these names, so `reelstream ops dlq list` reads them all (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from shared.events import DecodeError
from shared.headers import ORIGINAL_WRITER, WRITER

CODE = "reelstream-dlq-code"
REASON = "reelstream-dlq-reason"
FIELD = "reelstream-dlq-field"
SOURCE_TOPIC = "reelstream-dlq-topic"
SOURCE_PARTITION = "reelstream-dlq-partition"
SOURCE_OFFSET = "reelstream-dlq-offset"
CONSUMER = "reelstream-dlq-consumer"
# Set on a record put back on its source topic by `reelstream ops dlq redrive`: "<dlq topic>/<partition>/<offset>".
REDRIVE = "reelstream-redrive-of"
# On a dead letter that could not copy every header of the refused record: "<count> sha256:<hex>", the digest over
# each dropped header's name bytes and value (length-prefixed, in order; a null value as length 0xffffffff).
DROPPED_HEADERS = "reelstream-dlq-dropped-headers"
# On a dead letter whose refused key or value was too large to carry as it was (`shrunk`): how it is kept.
SHRUNK_KEY = "reelstream-dlq-key"
SHRUNK_VALUE = "reelstream-dlq-value"

Headers = list[tuple[str, bytes]]
_OURS = frozenset({CODE, REASON, FIELD, SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET, CONSUMER})


@dataclass(frozen=True)
class DeadLetterOrigin:
    topic: str
    partition: int
    offset: int
    reason: str
    field: str
    consumer: str
    code: str = ""


def dead_letter_headers(
    error: DecodeError,
    *,
    topic: str,
    partition: int,
    offset: int,
    consumer: str,
    original: Headers = (),
    code: str = "UNDECODABLE",
) -> Headers:
    """The original headers (content-type, a re-drive marker) plus why and where the record failed."""
    return refusal_headers(
        code,
        error.reason,
        error.field,
        topic=topic,
        partition=partition,
        offset=offset,
        consumer=consumer,
        original=original,
    )


def refusal_headers(
    code: str,
    reason: str,
    field: str,
    *,
    topic: str,
    partition: int,
    offset: int,
    consumer: str,
    original: Headers = (),
) -> Headers:
    """`code` is a stable word (UNDECODABLE, WRONG_TOPIC, WRONG_KEY, UNKNOWN_NETWORK, UNTRUSTED_WRITER, ...)."""
    kept = [(key, value) for key, value in original if key not in _OURS]
    return kept + [
        (CODE, code[:100].encode(errors="backslashreplace")),
        (REASON, reason[:1000].encode(errors="backslashreplace")),
        (FIELD, field[:200].encode(errors="backslashreplace")),
        (SOURCE_TOPIC, topic.encode()),
        (SOURCE_PARTITION, str(partition).encode()),
        (SOURCE_OFFSET, str(offset).encode()),
        (CONSUMER, consumer.encode()),
    ]


def copyable(
    headers: Iterable[tuple[str, bytes | None]], limit: int, budget: int, once: frozenset[str] = frozenset()
) -> Headers:
    """The headers a dead letter can carry unchanged (a UTF-8 name, a value; the names in `once` only the first
    time), at most `limit` of them and `budget` bytes of names and values, plus one DROPPED_HEADERS header counting
    and digesting the others, so the evidence of every header stays checkable and the dead letter's own header set
    stays one a reader accepts and a size its topic takes."""
    kept: Headers = []
    dropped: list[tuple[bytes, bytes | None]] = []
    seen: set[str] = set()
    for name, value in headers:
        raw_name = name.encode(errors="surrogateescape")
        repeated = name in once and name in seen
        size = len(raw_name) + len(value or b"")
        unwritable = value is None or repeated or name == DROPPED_HEADERS or not _utf8(raw_name)
        if unwritable or len(kept) >= limit or size > budget:
            dropped.append((raw_name, value))
        else:
            kept.append((name, value))
            seen.add(name)
            budget -= size
    if dropped:
        kept.append((DROPPED_HEADERS, f"{len(dropped)} sha256:{_digest(dropped)}".encode()))
    return kept


def shrunk(content: bytes, limit: int) -> tuple[bytes, bytes | None]:
    """A key or value as a dead letter carries it: unchanged up to `limit` bytes; past it (only a compressed batch
    carries one that large) zstd-compressed whole, or, still past it, cut to `limit`; then also the note for its
    SHRUNK header: "<zstd|cut> <length> sha256:<hex>", the length and digest of the bytes as they were."""
    if len(content) <= limit:
        return content, None
    import zstandard

    digest = hashlib.sha256(content).hexdigest()
    packed = zstandard.ZstdCompressor(level=3).compress(content)
    how, kept = ("zstd", packed) if len(packed) <= limit else ("cut", content[:limit])
    return kept, f"{how} {len(content)} sha256:{digest}".encode()


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True


def _digest(headers: list[tuple[bytes, bytes | None]]) -> str:
    hashed = hashlib.sha256()
    for name, value in headers:
        hashed.update(len(name).to_bytes(4, "big") + name)
        hashed.update(b"\xff\xff\xff\xff" if value is None else len(value).to_bytes(4, "big") + value)
    return hashed.hexdigest()


def origin_of(headers: Headers) -> DeadLetterOrigin | None:
    """Where a dead letter came from, or None when its headers are not ours."""
    found = {key: value.decode(errors="replace") for key, value in headers if value is not None}
    if SOURCE_TOPIC not in found:
        return None
    return DeadLetterOrigin(
        topic=found[SOURCE_TOPIC],
        partition=int(found.get(SOURCE_PARTITION, "-1")),
        offset=int(found.get(SOURCE_OFFSET, "-1")),
        reason=found.get(REASON, ""),
        field=found.get(FIELD, ""),
        consumer=found.get(CONSUMER, ""),
        code=found.get(CODE, ""),
    )


def redrive_marker(dlq_topic: str, partition: int, offset: int) -> str:
    return f"{dlq_topic}/{partition}/{offset}"


def redrive_headers(original: Headers, marker: str) -> Headers:
    """Headers of a re-driven record: the original ones minus our DLQ reasons, the writer id the record came with
    (a re-drive re-sends the original record, so it is still only as trusted as its writer), and the re-drive marker."""
    dropped = _OURS | {REDRIVE, WRITER, ORIGINAL_WRITER, DROPPED_HEADERS, SHRUNK_KEY, SHRUNK_VALUE}
    kept = [(key, value) for key, value in original if key not in dropped]
    claimed = [(WRITER, value) for key, value in original if key == ORIGINAL_WRITER]
    return kept + claimed + [(REDRIVE, marker.encode())]
