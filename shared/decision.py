"""The one contract of every service core: `decide(state, message, now) -> Decision`, `evolve(state, event) -> state`,
on decoded models only, with in-place state and one writer (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from shared.events.envelope import Envelope
from shared.events.errors import DecodeError

S = TypeVar("S")


@dataclass(frozen=True)
class Refusal:
    """A message refused as a whole, with a reason code: the loop dead-letters that very record."""

    code: str
    reason: str
    field: str = "$"


@dataclass(frozen=True)
class Decision:
    """What leaves a service for one message (or batch), in order within each kind.

    events: facts the service appends to its own log (already folded into the state by `evolve`);
    commands: to other services; answers: to clients (a client's answer keyed to it; `rerouted` answers go to the
    partition of their key rather than the input's, for a record that reached the wrong partition);
    dead_letters: inputs refused without an answer; repeats: inputs recognised as repeats that changed nothing;
    repeated: the ids of facts written before that a repeat is answered with again, in order (the loop re-emits each
    one's original record byte for byte: shared/repeats.py).
    """

    events: tuple[Envelope[Any], ...] = ()
    commands: tuple[Envelope[Any], ...] = ()
    answers: tuple[Envelope[Any], ...] = ()
    rerouted: tuple[Envelope[Any], ...] = ()
    dead_letters: tuple[Refusal, ...] = ()
    repeats: int = 0
    repeated: tuple[str, ...] = ()

    def __add__(self, other: Decision) -> Decision:
        return Decision(
            self.events + other.events,
            self.commands + other.commands,
            self.answers + other.answers,
            self.rerouted + other.rerouted,
            self.dead_letters + other.dead_letters,
            self.repeats + other.repeats,
            self.repeated + other.repeated,
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


@dataclass(frozen=True)
class CheckedAward:
    """A JackpotWon a settlement carries, as the loop read it: the decoded award (None: its bytes are no JackpotWon)
    and why it is not the jackpot service's signed record (None: it is)."""

    won: Any
    problem: str | None


@dataclass(frozen=True)
class Packed:
    """A record packing consecutive commands of one type and key (shared/events/batch.py), as a core reads it: the
    items in order, each validated as strictly as the same command in a record of its own."""

    items: tuple[Envelope[Any], ...]

    @property
    def type(self) -> str:
        return self.items[0].type


@dataclass(frozen=True)
class Message:
    """One consumed record as a core reads it, built once by the loop (shared/inbound.py): the decoded payload (or why
    it is none) and its verified provenance, never headers.

    broker_ms: the record's broker time (its "now"); writer: who vouches for it (the key that signed it; None where
    anyone may write it); operator: the operator that key binds (a cashier command signed with `cashier.<O>`'s key);
    proof: an attached proof (the jackpot's signed JackpotWon behind a forwarded answer; the CheckedAwards of the
    JackpotWons a settlement carries); key: the record key as text;
    misplaced: why its key belongs on another partition (None: in its place); cause: a stable name of the record
    (logical topic, partition, index) that ids of an answer to this one record derive from."""

    payload: Envelope[Any] | Packed | Undecodable
    broker_ms: int
    writer: str | None = None
    operator: str | None = None
    proof: Any = None
    key: str | None = None
    misplaced: str | None = None
    cause: tuple[Any, ...] = ()


class Core(Protocol[S]):
    """A money service's core as the loop runs it: one signature in every service. What does not vary per record (the
    RNG, pool secrets, the key ring, the catalog) is a port the core is given once at construction; what does (the
    writer, the operator a key binds, an attached proof) is the message's provenance.

    new_state: a partition's empty state; decide: what one message makes the service write at broker time `now`,
    its events folded into `state` by `evolve` as they are decided; evolve: one of the service's facts folded into
    `state` (in place), live and on restore alike."""

    def new_state(self, partition: int) -> S: ...

    def decide(self, state: S, message: Message, now: datetime) -> Decision: ...

    def evolve(self, state: S, event: Envelope[Any]) -> S: ...
