"""What the core takes in and gives back: decoded commands with their broker time, events and dead letters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Refusal
from shared.events import Envelope, broker_time, derived_id, envelope, epoch_ms

SOURCE = "reelstream/jackpot"


@dataclass(frozen=True)
class Incoming:
    """One decoded command with its record's broker time (the handler's "now")."""

    command: Envelope[Any]
    broker_ms: int


@dataclass
class Outcome:
    events: list[Envelope[Any]] = field(default_factory=list)
    dead_letters: list[Refusal] = field(default_factory=list)
    repeats: int = 0


def answer_envelope(data: Any, incoming: Incoming, command_id: Any, what: str, correlationid: str | None = None):
    """An event answering one command: dated by its broker time, its id derived from the command id and the step."""
    return envelope(
        data,
        source=SOURCE,
        time=broker_time(incoming.broker_ms),
        id=derived_id(command_id, what),
        correlationid=correlationid,
        causationid=str(incoming.command.id),
    )


def answered_before(
    state: Any, incoming: Incoming, command_id: Any, fingerprint: Any, outcome: Outcome, what: str = "command id"
) -> bool:
    """Whether a command id was decided before: then its answers again (a repeat, counted) or, with other content,
    a dead letter. False: a new command."""
    seen = state.seen.get(command_id)
    if seen is None:
        return False
    if seen.fingerprint != fingerprint:
        reason = f"{what} reused with other content"
        outcome.dead_letters.append(Refusal("DUPLICATE_CONFLICT", reason))
        return True
    outcome.repeats += 1
    outcome.events.extend(state.answers[event_id] for event_id in seen.event_ids)
    return True


def is_expired(incoming: Incoming) -> bool:
    """Older than the de-dup window or dated beyond the clock skew in the future (by the record's broker time): an
    operator's command only; the spin's contributions and claims belong to a debited wager and are never refused by
    age (their ids are remembered for the window after they are answered, see docs/jackpot.md)."""
    age_ms = incoming.broker_ms - epoch_ms(incoming.command.time)
    return age_ms > DEDUP_WINDOW_MS or age_ms < -CLOCK_SKEW_MS
