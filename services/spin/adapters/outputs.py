"""A spin Decision as the records to produce: journal facts first (awaited), then commands, answers, dead letters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.spin.core.book import SpinBook
from shared import records
from shared.decision import Decision
from shared.events import Envelope, encode
from shared.events.jackpot import Claim, Contribute
from shared.events.spin import SeedDrawn
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager

_COMMAND_KINDS = {DebitWager: "debit", Contribute: "contribute", Claim: "claim", SettleWager: "settle"}
_COMMAND_KINDS.update({PlaceWager: "place", RefundWager: "refund"})


@dataclass(frozen=True)
class Out:
    """One record to produce: `topic` is the logical name (the runner adds the deployment's prefix)."""

    topic: str
    key: bytes
    value: bytes
    kind: str  # journal | seed | debit | place | contribute | claim | settle | refund | answer | home-answer | dlq
    headers: tuple[tuple[str, bytes], ...] = ()
    # Journal facts go to the book's own partition (folded on rebuild); None: the key's partition. Answers go by their
    # key: the book's own partition for a request on its partition, the named player's for a refusal of a record that
    # sat elsewhere (keyless, or keyed by another player), where the partition guards expect it.
    partition: int | None = None


@dataclass
class Effects:
    journal: list[Out] = field(default_factory=list)
    outputs: list[Out] = field(default_factory=list)


def outputs_of(
    decision: Decision, book: SpinBook, logical: str, record: Any, partition: int, traced: tuple, effects: Effects
) -> None:
    """Append the records of one input's Decision to the batch's effects (`traced`: the input's trace headers)."""
    traced = tuple(traced)
    for refusal in decision.dead_letters:
        letter = records.refused_letter(logical, record, refusal, consumer="spin")
        effects.outputs.append(Out(letter.topic, letter.key or b"", letter.value, "dlq", tuple(letter.headers)))
    for fact in decision.events:
        kind = "seed" if isinstance(fact.data, SeedDrawn) else "journal"
        effects.journal.append(Out(fact.data.TOPIC, fact.key, encode(fact), kind, traced, partition))
    for command in decision.commands:
        kind = _COMMAND_KINDS[type(command.data)]
        effects.outputs.append(Out(command.data.TOPIC, command.key, encode(command), kind, traced))
    for reply in decision.answers:
        effects.outputs.append(Out(reply.data.TOPIC, reply.key, answer_bytes(book, reply), "answer", traced))
    for reply in decision.rerouted:  # where the producer's default partitioner puts the key
        effects.outputs.append(Out(reply.data.TOPIC, reply.key, encode(reply), "home-answer", traced))


def answer_bytes(book: SpinBook, reply: Envelope[Any]) -> bytes:
    """A request's answer as the book keeps it (a repeat is the very bytes of the first time), else encoded."""
    request_id = getattr(reply.data, "request_id", None)
    kept = book.records.get(request_id) if request_id is not None else None
    if kept is not None and kept.answer_id == reply.id and kept.answer is not None:
        return kept.answer
    return encode(reply)
