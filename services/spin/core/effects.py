"""What a spin handler asks the adapter to write: journal facts first (awaited), then commands and answers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from services.spin.core import fold
from shared.events import encode, envelope
from shared.events.base import Payload
from shared.events.envelope import Envelope

SOURCE = "reelstream/spin"


@dataclass(frozen=True)
class Refused:
    """Why an input record is refused as a whole: the adapter turns it into a dead letter (shared/records.py)."""

    code: str
    reason: str
    field: str = "$"


@dataclass(frozen=True)
class Out:
    """One record to produce: `topic` is the logical name (the adapter adds the deployment's prefix)."""

    topic: str
    key: bytes
    value: bytes
    kind: str  # journal | seed | debit | contribute | claim | settle | refund | answer | home-answer | dlq
    headers: tuple[tuple[str, bytes], ...] = ()
    partition: int | None = None  # set by the adapter: journal facts and answers go to the book's own partition
    refused: Refused | None = None  # a dead letter: the input record to refuse, and why


@dataclass
class Effects:
    journal: list[Out] = field(default_factory=list)
    outputs: list[Out] = field(default_factory=list)

    def extend(self, other: "Effects") -> None:
        self.journal.extend(other.journal)
        self.outputs.extend(other.outputs)


@dataclass(frozen=True)
class Context:
    """The spin core's ports: games and networks, the token check, and the seed source (the only randomness)."""

    catalog: Catalog
    token_problem: Callable[[str, str, int], str | None]  # (token, player id, now ms) -> what is wrong, or None
    draw_seed: Callable[[str, uuid.UUID], bytes]  # (player id, request id) -> 32 bytes


def message(data: Payload, event_id: uuid.UUID, now: datetime, cause: uuid.UUID) -> Envelope[Any]:
    return envelope(data, source=SOURCE, time=now, id=event_id, correlationid=str(cause), causationid=None)


def record_fact(effects: Effects, book: SpinBook, catalog: Catalog, fact: Envelope[Any], kind: str = "journal") -> None:
    """A journal fact: folded into the book now, written (and awaited) before any output of the batch."""
    raw = encode(fact)
    fold.apply(book, catalog, fact, raw)
    effects.journal.append(Out(fact.data.TOPIC, fact.key, raw, kind))


def send(effects: Effects, command: Envelope[Any], kind: str) -> None:
    effects.outputs.append(Out(command.data.TOPIC, command.key, encode(command), kind))


def answer(effects: Effects, book: SpinBook, catalog: Catalog, reply: Envelope[Any]) -> None:
    """The one answer of a request: folded into the book (a repeat re-emits these very bytes) and published."""
    raw = encode(reply)
    fold.apply(book, catalog, reply, raw)
    effects.outputs.append(Out(reply.data.TOPIC, reply.key, raw, "answer"))
