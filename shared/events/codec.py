"""The one encode/decode path between Kafka record values and typed envelopes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import re

import orjson
from pydantic import ValidationError

from shared.events.base import payload_class
from shared.events.batch import BATCH_TYPE, MAX_ITEMS, is_packed
from shared.events.envelope import CommandEnvelope, Envelope, parametrized
from shared.events.errors import DecodeError

MAX_RECORD_BYTES = 1_000_000
# Nesting no message of the contract comes near (the deepest, a settled spin's outcome, is under 10): a deeper record
# is refused before anything reads its fields, whose containers a writer can nest as deep as the JSON parser goes.
MAX_JSON_DEPTH = 32

# type -> (its KIND, the validator of its envelope class): one dict look-up per record instead of a registry look-up,
# a cached class look-up and pydantic's model_validate wrapper (the same validation, a cheaper path to it).
_READERS: dict[str, tuple[str, Callable[[Any], Envelope[Any]]]] = {}


def encode(message: Envelope[Any]) -> bytes:
    """Structured-mode CloudEvents JSON; attributes that are None are left out. Exactly
    `message.model_dump_json(exclude_none=True).encode()` (a test holds it to that), without its wrapper and the
    round trip through a str (several records a spin)."""
    return message.__pydantic_serializer__.to_json(message, exclude_none=True)


def canonical(type_: str, data: Any, unset_later: tuple[str, ...] = ()) -> bytes:
    """A message's content as canonical JSON (its type and every data field, keys sorted; no envelope): what a
    fingerprint hashes. Fields of `unset_later` (added after fingerprints were first stored) are left out while None."""
    fields = data.model_dump(mode="json")
    for name in unset_later:
        if fields.get(name) is None:
            fields.pop(name, None)
    return orjson.dumps({"type": type_, "data": fields}, option=orjson.OPT_SORT_KEYS)


def may_be(value: bytes | None, types) -> bool:
    """False only when the record is certainly none of `types` (its bytes hold no such type name) or certainly a
    well-formed record of another type: a cheap filter before `decode` for readers that want a few types of a busy
    topic (each is one pydantic validation less), which judges everything this lets through."""
    if not value:
        return True
    if any(name.encode() in value for name in types):
        return True
    try:
        type_ = orjson.loads(value).get("type")
    except (orjson.JSONDecodeError, AttributeError):
        return True  # undecodable: the decode that follows judges it
    return not isinstance(type_, str)


def decode(value: bytes | None, *, expect_kind: str | None = None) -> Envelope[Any]:
    """Parse and validate one record value. Raises DecodeError naming the first field that is wrong.

    expect_kind: "command" on inbound command topics (strict: unknown fields refused), "event" to refuse commands.
    """
    if value is None:
        raise DecodeError("$", "record has no value (tombstone)")
    return _validated(_parsed(value, MAX_JSON_DEPTH), expect_kind)


def _parsed(value: bytes, depth: int) -> Any:
    """A record's JSON, within the record bound and `depth` levels of nesting; DecodeError otherwise."""
    if len(value) > MAX_RECORD_BYTES:
        raise DecodeError("$", f"record is {len(value)} bytes, more than {MAX_RECORD_BYTES}")
    try:
        raw = orjson.loads(value)
    except orjson.JSONDecodeError as error:
        raise DecodeError("$", f"not JSON: {error}") from None
    if _deeper_than(value, raw, depth):
        raise DecodeError("$", f"JSON nested deeper than {depth} levels")
    return raw


def _validated(raw: Any, expect_kind: str | None, at: str = "") -> Envelope[Any]:
    """A parsed message validated as its type's envelope; DecodeError fields are prefixed with `at` (a batch item)."""
    if not isinstance(raw, dict):
        raise DecodeError(at + "$", "a CloudEvent must be a JSON object")
    type_ = raw.get("type")
    if not isinstance(type_, str):
        raise DecodeError(at + "type", "missing or not a string", raw)
    reader = _READERS.get(type_) or _reader(type_)
    if reader is None:
        raise DecodeError(at + "type", f"unknown message type {type_!r}", raw)
    kind, validate = reader
    if expect_kind is not None and kind != expect_kind:
        raise DecodeError(at + "type", f"{type_!r} is a {kind}, expected a {expect_kind}", raw)
    try:
        return validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "$"
        raise DecodeError(at + field, first["msg"], raw) from None


def decode_all(value: bytes | None, *, expect_kind: str | None = None) -> tuple[Envelope[Any], ...]:
    """The messages of one record, in order: a batch envelope's items (shared/events/batch.py), or the one message of
    any other record (`decode_one_pass`). The one reading function of a topic the loop may pack; every guard of
    `decode` applies to the record and to each item, and a batch holds 1 .. MAX_ITEMS messages of one type."""
    if not is_packed(value):
        return (decode_one_pass(value, expect_kind=expect_kind),)
    raw = _parsed(value, MAX_JSON_DEPTH + 2)  # the envelope and its list hold messages of the usual depth
    if raw.get("batch") != BATCH_TYPE:
        raise DecodeError("batch", f"not a batch envelope this reader knows ({BATCH_TYPE})")
    items = raw.get("items")
    if set(raw) != {"batch", "items"} or not isinstance(items, list):
        raise DecodeError("items", "a batch envelope is exactly its version and its list of items")
    if not 0 < len(items) <= MAX_ITEMS:
        raise DecodeError("items", f"{len(items)} items, not 1 .. {MAX_ITEMS}")
    messages = tuple(_validated(item, expect_kind, f"items.{index}.") for index, item in enumerate(items))
    if any(message.type != messages[0].type for message in messages):
        raise DecodeError("items", "a batch holds messages of one type")
    return messages


def _deeper_than(value: bytes, raw: Any, limit: int) -> bool:
    """Whether the parsed JSON nests more than `limit` containers; a record with no more opening brackets than that
    cannot, which settles almost every record without a walk."""
    if value.count(b"[") + value.count(b"{") <= limit:
        return False
    level: list[Any] = [raw] if isinstance(raw, (dict, list)) else []
    for _ in range(limit):
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, (dict, list))
        ]
        if not level:
            return False
    return True


# The envelope's `type` as `encode` writes it (no spaces): found in the bytes, it names the model to validate them with.
_TYPE_IN_BYTES = re.compile(rb'"type":"(reelstream\.[a-z-]+\.[a-z-]+\.v[0-9]+)"')
_JSON_READERS: dict[bytes, tuple[str, Callable[[bytes], Envelope[Any]]]] = {}  # type -> (KIND, validator)


def decode_one_pass(value: bytes | None, *, expect_kind: str | None = None) -> Envelope[Any]:
    """`decode(value, expect_kind=...)` in one pass over the bytes: pydantic validates the JSON itself, without a Python
    dict first (about half the time of a record). A success means the bytes are a message of the type found in them
    (the envelope checks its type against its payload's) and of `expect_kind`; anything else takes `decode`'s path,
    for its error."""
    found = _TYPE_IN_BYTES.search(value, 0, 4096) if value and len(value) <= MAX_RECORD_BYTES else None
    reader = (_JSON_READERS.get(found.group(1)) or _json_reader(found.group(1))) if found else None
    if reader is not None and (expect_kind is None or reader[0] == expect_kind):
        try:
            return reader[1](value)
        except ValidationError:
            pass
    return decode(value, expect_kind=expect_kind)


def _json_reader(type_bytes: bytes) -> tuple[str, Callable[[bytes], Envelope[Any]]] | None:
    model = payload_class(type_bytes.decode())
    if model is None:
        return None
    envelope_class = CommandEnvelope if model.KIND == "command" else Envelope
    validate = parametrized(envelope_class, model).__pydantic_validator__.validate_json
    _JSON_READERS[type_bytes] = (model.KIND, validate)
    return _JSON_READERS[type_bytes]


def _reader(type_: str) -> tuple[str, Callable[[Any], Envelope[Any]]] | None:
    """The KIND and envelope validator of a registered type (None: unknown), remembered for the next record."""
    model = payload_class(type_)
    if model is None:
        return None
    envelope_class = CommandEnvelope if model.KIND == "command" else Envelope
    _READERS[type_] = (model.KIND, parametrized(envelope_class, model).__pydantic_validator__.validate_python)
    return _READERS[type_]
