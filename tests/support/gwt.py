"""given(events).when(message).then(events): one specification shape for every service core (shared/decision.py).

`given` folds facts with the core's own `evolve` (each encoded and read back first, as a restore reads them), `when`
decides one message at a broker time, `then` names what the Decision must hold, in order: a payload class matches any
event of that type, a payload instance must equal the event's data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from shared.decision import Decision
from shared.events import Envelope, decode, encode

S = TypeVar("S")


@dataclass(frozen=True)
class Core(Generic[S]):
    """A service core under test: a fresh state, its evolve and its decide (ports bound)."""

    new_state: Callable[[], S]
    evolve: Callable[..., S]
    decide: Callable[[S, Any, datetime], Decision]

    def given(self, *events: Envelope[Any], state: S | None = None) -> Given[S]:
        state = self.new_state() if state is None else state
        for event in events:
            raw = encode(event)
            self.evolve(state, decode(raw, expect_kind="event"), raw)
        return Given(self, state)


@dataclass
class Given(Generic[S]):
    core: Core[S]
    state: S

    def when(self, message: Any, now: datetime) -> Then[S]:
        return Then(self, self.core.decide(self.state, message, now))


@dataclass
class Then(Generic[S]):
    given: Given[S]
    decision: Decision

    @property
    def state(self) -> S:
        return self.given.state

    def then(self, *expected: Any) -> Then[S]:
        """The decided events, in order (see the module docstring)."""
        _match("events", self.decision.events, expected)
        return self

    def then_commands(self, *expected: Any) -> Then[S]:
        _match("commands", self.decision.commands, expected)
        return self

    def then_answers(self, *expected: Any) -> Then[S]:
        _match("answers", self.decision.answers, expected)
        return self

    def then_repeated(self, *facts: Envelope[Any]) -> Then[S]:
        """The facts written before that the decision answers a repeat with, in order (and nothing new)."""
        wanted = tuple(str(fact.id) for fact in facts)
        assert self.decision.repeated == wanted, f"repeated {self.decision.repeated}, expected {wanted}"
        return self.then()

    def then_dead_letters(self, *codes: str) -> Then[S]:
        found = tuple(refusal.code for refusal in self.decision.dead_letters)
        assert found == codes, f"dead letters {found}, expected {codes}"
        return self

    def when(self, message: Any, now: datetime) -> Then[S]:
        """Decide the next message against the state this one left."""
        return self.given.when(message, now)


def _match(what: str, found: tuple[Envelope[Any], ...], expected: tuple[Any, ...]) -> None:
    names = [type(event.data).__name__ for event in found]
    assert len(found) == len(expected), f"{what}: {names}, expected {len(expected)}"
    for event, wanted in zip(found, expected):
        if isinstance(wanted, type):
            assert isinstance(event.data, wanted), f"{what}: {names}, expected a {wanted.__name__} here"
        else:
            assert event.data == wanted, f"{what}: {event.data!r} != {wanted!r}"


def data_of(decision: Decision, kind: type) -> list[Any]:
    """The payloads of one type among a Decision's events, commands and answers."""
    every = decision.events + decision.commands + decision.answers + decision.rerouted
    return [message.data for message in every if isinstance(message.data, kind)]
