"""Hostile record values built from a well-formed message (pure): nested a thousand levels deep in one field, padded
to just under the broker's limit, a compressible bomb that inflates far past it, or a field of the wrong type."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from reelstream.chaos.fuzz_bytes import filler

# Kafka's default message.max.bytes, which no input topic overrides: the largest batch the broker takes.
BROKER_MAX_BATCH_BYTES = 1_048_588
# A huge record is alone in its batch: room for the batch header (61 bytes), the record's framing, a player key and
# the default headers.
HUGE_MAX_BYTES = BROKER_MAX_BATCH_BYTES - 512
HUGE_SIZES = (512 * 1024, 900_000, HUGE_MAX_BYTES)
# Bombs: what one compressed batch far below the broker's limit inflates to at the consumer.
BOMB_SIZES = (4 * 1024 * 1024, 16 * 1024 * 1024)
# orjson's depth limit is 1,024 and CPython's recursion limit 1,000: just under, at and past both.
DEPTHS = (1_000, 1_000, 1_023, 5_000)
UNKNOWN_FIELD = "x_nested"
WRONG_VALUES: tuple[Any, ...] = ("", 0, -1, 1.5, True, None, [], {}, [1, 2], {"a": {"b": 1}}, "x" * 300, 2**64)
ENVELOPE_FIELDS = ("specversion", "id", "type", "time", "subject", "source", "datacontenttype", "data")
_MARK = "__reelstream_fuzz_mark__"


def _with_mark(message: dict[str, Any], field: str) -> bytes:
    """The message with `field` of its data (or the envelope's, for an envelope field name) set to a placeholder."""
    data = message.get("data")
    if field in ENVELOPE_FIELDS or not isinstance(data, dict):
        message = {**message, field: _MARK}
    else:
        message = {**message, "data": {**data, field: _MARK}}
    return json.dumps(message).encode()


def nested(message: dict[str, Any], field: str, depth: int, arrays: bool) -> bytes:
    """The message with `field` replaced by arrays (or objects) nested `depth` levels deep."""
    inner = b"[" * depth + b"]" * depth if arrays else b'{"a":' * depth + b"0" + b"}" * depth
    return _with_mark(message, field).replace(json.dumps(_MARK).encode(), inner, 1)


def padded(message: dict[str, Any], size: int, seed: int) -> bytes:
    """The message grown to exactly `size` bytes by an unknown string field of printable filler."""
    shell = _with_mark(message, "x_padding")
    room = size - (len(shell) - len(json.dumps(_MARK).encode())) - 2
    text = filler(room * 3 // 4 + 3, seed).hex()[:room].encode() if room > 0 else b""
    return shell.replace(json.dumps(_MARK).encode(), b'"' + text + b'"', 1)


def bomb(message: dict[str, Any], size: int) -> bytes:
    """The message with an unknown field of `size` repeated bytes: a few KiB once compressed."""
    shell = _with_mark(message, "x_padding")
    return shell.replace(json.dumps(_MARK).encode(), b'"' + b"A" * size + b'"', 1)


@st.composite
def deep(draw, message: dict[str, Any]) -> tuple[str, bytes]:
    """(shape, value): a field the decoder reads, or an unknown one, nested a thousand levels and more."""
    fields = sorted(message["data"]) + [UNKNOWN_FIELD, "data"]
    field = draw(st.sampled_from(fields))
    depth, arrays = draw(st.sampled_from(DEPTHS)), draw(st.booleans())
    return f"deep/{field}", nested(message, field, depth, arrays)


@st.composite
def wrong_types(draw, message: dict[str, Any]) -> tuple[str, bytes]:
    """(shape, value): one envelope field, or one data field, of a type no schema allows."""
    field = draw(st.sampled_from((*ENVELOPE_FIELDS, *sorted(message["data"]))))
    wrong = draw(st.sampled_from(WRONG_VALUES))
    if field in ENVELOPE_FIELDS:
        changed = {**message, field: wrong}
    else:
        changed = {**message, "data": {**message["data"], field: wrong}}
    return f"wrong-type/{field}", json.dumps(changed).encode()
