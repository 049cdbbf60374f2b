"""The batch envelope: one record holding a transaction's consecutive messages of one topic, key and type, in order,
each exactly as `encode` wrote it (docs/contract.md, "Batch envelope"). The loop packs without reading the messages
(`pack`); readers unpack with `shared.events.codec.decode_all`, which reads a single message the same way."""

from __future__ import annotations

from collections.abc import Sequence

BATCH_TYPE = "reelstream.batch.v1"
# The record's content type: not a CloudEvent itself, a versioned envelope of them.
BATCH_CONTENT_TYPE = "application/vnd.reelstream.batch.v1+json"
# At most this many messages a record, as the jackpot's runs of contributions were bounded before packing existed.
MAX_ITEMS = 1000
# At most this many bytes a packed record: below the codec's record bound (MAX_RECORD_BYTES, every reader's guard) and
# the broker's message.max.bytes default (shared/topics.py: SOURCE_MAX_MESSAGE_BYTES) with room for the headers.
MAX_PACKED_BYTES = 900_000

_OPEN = b'{"batch":"' + BATCH_TYPE.encode() + b'","items":['
_CLOSE = b"]}"
_PREFIX = b'{"batch":'  # what tells a packed record from a message (`encode` starts every message with its specversion)


def pack(values: Sequence[bytes]) -> bytes:
    """One record of these encoded messages, in order (the caller keeps within MAX_ITEMS and MAX_PACKED_BYTES)."""
    assert 0 < len(values) <= MAX_ITEMS, "a batch holds 1 .. MAX_ITEMS messages"
    return _OPEN + b",".join(values) + _CLOSE


def packed_bytes(sizes_total: int, count: int) -> int:
    """The size of a record packing `count` messages of `sizes_total` bytes in all."""
    return len(_OPEN) + sizes_total + max(count - 1, 0) + len(_CLOSE)


def is_packed(value: bytes | None) -> bool:
    return value is not None and value.startswith(_PREFIX)
