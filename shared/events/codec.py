"""The one encode/decode path between Kafka record values and typed envelopes."""
from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from shared.events.base import payload_class
from shared.events.envelope import CONTENT_TYPE, CommandEnvelope, Envelope, parametrized
from shared.events.errors import DecodeError

HEADERS: list[tuple[str, bytes]] = [("content-type", CONTENT_TYPE.encode())]
MAX_RECORD_BYTES = 1_000_000


def encode(message: Envelope[Any]) -> bytes:
    """Structured-mode CloudEvents JSON; attributes that are None are left out."""
    return message.model_dump_json(exclude_none=True).encode()


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
    if len(value) > MAX_RECORD_BYTES:
        raise DecodeError("$", f"record is {len(value)} bytes, more than {MAX_RECORD_BYTES}")
    try:
        raw = orjson.loads(value)
    except orjson.JSONDecodeError as error:
        raise DecodeError("$", f"not JSON: {error}") from None
    if not isinstance(raw, dict):
        raise DecodeError("$", "a CloudEvent must be a JSON object")
    type_ = raw.get("type")
    if not isinstance(type_, str):
        raise DecodeError("type", "missing or not a string", raw)
    model = payload_class(type_)
    if model is None:
        raise DecodeError("type", f"unknown message type {type_!r}", raw)
    if expect_kind is not None and model.KIND != expect_kind:
        raise DecodeError("type", f"{type_!r} is a {model.KIND}, expected a {expect_kind}", raw)
    envelope_class = CommandEnvelope if model.KIND == "command" else Envelope
    try:
        return parametrized(envelope_class, model).model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "$"
        raise DecodeError(field, first["msg"], raw) from None
