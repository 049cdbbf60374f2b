"""The spin core's ports (games, token check, seed source) and the draft of one Decision while a message is decided."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from services.spin.core.evolve import evolve
from shared.decision import Decision, Refusal
from shared.events import envelope
from shared.events.base import Payload
from shared.events.envelope import Envelope

SOURCE = "reelstream/spin"


@dataclass(frozen=True)
class Context:
    """The spin core's ports: games and networks, the token check, and the seed source (the only randomness)."""

    catalog: Catalog
    token_problem: Callable[[str, str, int], str | None]  # (token, player id, now ms) -> what is wrong, or None
    draw_seed: Callable[[str, uuid.UUID], bytes]  # (player id, request id) -> 32 bytes
    # (a checked token) -> the operator whose session key signed it, None for a key of no operator
    token_operator: Callable[[str], str | None] = lambda _token: None


def wager_of(source: Any) -> dict[str, Any]:
    """The five fields that name a wager in every spin fact (a SpinRequested's data or a SpinRecord)."""
    return {
        "request_id": source.request_id,
        "player_id": source.player_id,
        "game": source.game,
        "stake_minor": source.stake_minor,
        "currency": source.currency,
    }


def message(data: Payload, event_id: uuid.UUID, now: datetime, cause: uuid.UUID) -> Envelope[Any]:
    return envelope(data, source=SOURCE, time=now, id=event_id, correlationid=str(cause), causationid=None)


@dataclass(frozen=True)
class SpinDecision(Decision):
    """A Decision, and a wallet fact's request that no book of this partition knows (`stray`): no spin will settle or
    refund that wager (another partition's book took its request, or it was forged past the trust checks), which the
    adapter reports as an alert. A redelivery of a fact older than the window (its request pruned) is reported too."""

    stray: uuid.UUID | None = None


@dataclass
class Draft:
    """A Decision being built: journal facts and a request's one answer are folded into the book as they are decided
    (shared/decision.py), so the rest of the message sees them."""

    book: SpinBook
    events: list[Envelope[Any]] = field(default_factory=list)
    commands: list[Envelope[Any]] = field(default_factory=list)
    answers: list[Envelope[Any]] = field(default_factory=list)
    rerouted: list[Envelope[Any]] = field(default_factory=list)
    dead_letters: list[Refusal] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)

    def record(self, fact: Envelope[Any]) -> None:
        """A journal fact: written before any output of its batch (a seed is persisted before the outcome shows)."""
        evolve(self.book, fact)
        self.events.append(fact)

    def send(self, command: Envelope[Any]) -> None:
        self.commands.append(command)

    def answer(self, reply: Envelope[Any]) -> None:
        """The one answer of a request: folded (a repeat re-emits it) and published."""
        evolve(self.book, reply)
        self.answers.append(reply)

    def reply(self, reply: Envelope[Any]) -> None:
        """An answer to one record only, never stored as the request's (its id derives from the record)."""
        self.answers.append(reply)

    def repeat(self, answer_id: uuid.UUID) -> None:
        """A request's one answer again, as first written (Decision.repeated)."""
        self.repeated.append(str(answer_id))

    def decision(self, stray: uuid.UUID | None = None) -> SpinDecision:
        return SpinDecision(
            tuple(self.events),
            tuple(self.commands),
            tuple(self.answers),
            tuple(self.rerouted),
            tuple(self.dead_letters),
            repeated=tuple(self.repeated),
            stray=stray,
        )
