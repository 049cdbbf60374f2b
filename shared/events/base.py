"""Base classes of message payloads: commands are validated strictly, events are read tolerantly. Each declares its
CloudEvents `TYPE` and key field (`SUBJECT_FIELD`); defining a subclass registers it with the codec."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, Strict

# Integers are strict everywhere: a float, a string or a bool is never money. And they are signed 64-bit: every one
# is stored in a Postgres bigint, so a value outside that range is refused by the codec (a dead letter), not by the
# projector's COPY halfway through a batch (orjson alone parses up to 2**64 - 1).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Int = Annotated[int, Strict(), Field(ge=INT64_MIN, le=INT64_MAX)]
Minor = Annotated[int, Strict(), Field(ge=INT64_MIN, le=INT64_MAX, description="amount in minor units (cent, øre)")]
Micro = Annotated[
    int,
    Strict(),
    Field(ge=INT64_MIN, le=INT64_MAX, description="amount in micro-units: 1 minor unit = 1,000,000 micro"),
]
Bool = Annotated[bool, Strict()]
# The one rule for player ids (and other identifiers): 1-64 ASCII letters, digits and ._:- (pseudonymous, no PII).
_ID_CHARS = r"[A-Za-z0-9._:-]"
ID_PATTERN = re.compile(rf"^{_ID_CHARS}{{1,64}}$")
PlayerId = Annotated[
    str, Field(min_length=1, max_length=64, pattern=rf"^{_ID_CHARS}+$", description="pseudonymous player id")
]
Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=rf"^{_ID_CHARS}+$")]
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code")]

_REGISTRY: dict[str, type["Payload"]] = {}


class Payload(BaseModel):
    TYPE: ClassVar[str] = ""
    SUBJECT_FIELD: ClassVar[str] = ""
    KIND: ClassVar[str] = ""
    TOPIC: ClassVar[str] = ""
    # Whether the loop may pack consecutive messages of this type (one topic, key and headers) into one batch-envelope
    # record (shared/events/batch.py): a reader of its topic unpacks them with `decode_all`.
    PACKABLE: ClassVar[bool] = False

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.__dict__.get("TYPE"):
            assert cls.TYPE.startswith("reelstream.") and cls.TYPE.rsplit(".", 1)[1].startswith("v"), cls.TYPE
            assert cls.SUBJECT_FIELD in cls.model_fields or cls.SUBJECT_FIELD == "", cls.TYPE
            assert cls.TYPE not in _REGISTRY, f"type {cls.TYPE} defined twice"
            _REGISTRY[cls.TYPE] = cls

    @property
    def subject(self) -> str:
        return str(getattr(self, self.SUBJECT_FIELD))


class CommandData(Payload):
    """Inbound: unknown fields are refused, nothing is coerced."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    KIND: ClassVar[str] = "command"


class EventData(Payload):
    """Facts: unknown fields are ignored so the contract can grow without breaking readers."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    KIND: ClassVar[str] = "event"


class Part(BaseModel):
    """A nested value object inside a payload (tolerant like events)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def payload_class(type_: str) -> type[Payload] | None:
    return _REGISTRY.get(type_)


def registered_types() -> dict[str, type[Payload]]:
    return dict(_REGISTRY)


def packable_types(topic: str) -> frozenset[str]:
    """The types of `topic` (logical name) its writer's loop may pack (`Payload.PACKABLE`)."""
    return frozenset(type_ for type_, model in _REGISTRY.items() if model.TOPIC == topic and model.PACKABLE)
