"""What the spin's adapter keeps beside a partition's book: each request's answer as first written on spin.events
(shared/repeats.py), so a repeat goes out as those very bytes, across restarts and codec changes; the book names which
answer (SpinRecord.answer_id) and forgets it on its own schedule, and the answers follow."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared.decision import Message
from shared.events import Envelope
from shared.repeats import Record, Repeats


def kept_answers() -> Repeats:
    """A partition's answers, kept until its book forgets their requests (`trimmed`)."""
    return Repeats(None)


@dataclass
class Partition:
    """A partition as a restore rebuilds it (and a warm spare keeps it): the core's book and its answers' records."""

    book: SpinBook = field(default_factory=SpinBook)
    answers: Repeats = field(default_factory=kept_answers)


def remembered(book: SpinBook, reply: Envelope[Any]) -> bool:
    """Whether `reply` is the answer the book keeps for its request (a repeat names it), not one to a record only."""
    request_id = getattr(reply.data, "request_id", None)
    record = book.records.get(request_id) if request_id is not None else None
    return record is not None and record.answer_id == reply.id


def read_back(book: SpinBook, answers: Repeats, message: Message, record: Record) -> None:
    """A fact of the spin's own topics folded as a restore reads it, an answer the book keeps with its record."""
    fold.evolve(book, message)
    if remembered(book, message.payload):
        answers.kept(str(message.payload.id), record, message.broker_ms)
    trimmed(book, answers)


def trimmed(book: SpinBook, answers: Repeats) -> None:
    """The answers of requests the book forgot dropped, once there are more answers than requests: they never
    outnumber the book's requests by much, and a sweep follows at most each of the book's own prunes."""
    if len(answers) > len(book.records):
        answers.keep_only({str(record.answer_id) for record in book.records.values() if record.answered})
