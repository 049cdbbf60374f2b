"""The one contract of every service core: `decide(state, message, now) -> Decision`, `evolve(state, event) -> state`.

Both work on decoded models only (no bytes, topics, headers or Kafka kinds). The choice shared by wallet, jackpot and
spin is **in-place state with one writer**: `evolve` is the only code that changes a state (it changes it in place
and returns it), and `decide` folds each event it decides with that `evolve` as it decides it, so the rest of the
message (or batch) sees it. The adapter then writes what the Decision names and folds nothing itself; a restore calls
`evolve` alone over the events read back. Copying a window of remembered ids per event would cost more than the
whole hot path, and each partition's state has exactly one owner (its handler), so nothing else can observe it
half-changed. `evolve` may take the event as written (`raw`) where a repeat must be re-emitted byte for byte; the
core keeps those bytes opaque and never parses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.events.envelope import Envelope
from shared.events.errors import DecodeError


@dataclass(frozen=True)
class Refusal:
    """An input refused as a whole, with a reason code: the adapter dead-letters that very record. `subject` names
    which input of a batch it is (None: the message decided)."""

    code: str
    reason: str
    field: str = "$"
    subject: Any = None


@dataclass(frozen=True)
class Decision:
    """What leaves a service for one message (or batch), in order within each kind.

    events: facts the service appends to its own log (already folded into the state by `evolve`);
    commands: to other services; answers: to clients (a client's answer keyed to it; `rerouted` answers go to the
    partition of their key rather than the input's, for a record that reached the wrong partition);
    dead_letters: inputs refused without an answer; repeats: inputs recognised as repeats that changed nothing.
    """

    events: tuple[Envelope[Any], ...] = ()
    commands: tuple[Envelope[Any], ...] = ()
    answers: tuple[Envelope[Any], ...] = ()
    rerouted: tuple[Envelope[Any], ...] = ()
    dead_letters: tuple[Refusal, ...] = ()
    repeats: int = 0

    def __add__(self, other: Decision) -> Decision:
        return Decision(
            self.events + other.events,
            self.commands + other.commands,
            self.answers + other.answers,
            self.rerouted + other.rerouted,
            self.dead_letters + other.dead_letters,
            self.repeats + other.repeats,
        )


NOTHING = Decision()


@dataclass(frozen=True)
class Undecodable:
    """A record the codec refused, as a core's message: whom it names (when readable) and a stable name of the
    record (`cause`, e.g. its topic, partition and offset) that ids of an answer to it derive from."""

    error: DecodeError
    player_id: str | None
    cause: tuple[Any, ...]

    def refusal(self) -> Refusal:
        return Refusal("UNDECODABLE", self.error.reason, self.error.field)
