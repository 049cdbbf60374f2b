"""What the seamless core decides on besides the spin's wager commands: an attempt's outcome, handed back by the
outbox adapter, and the passing of time."""

from __future__ import annotations

from dataclasses import dataclass

from seamless.port import Outcome


@dataclass(frozen=True)
class CallOutcome:
    """What attempt `attempt` of the call `call_id` got from the operator's wallet: an answer or no answer."""

    call_id: str
    attempt: int
    outcome: Outcome


@dataclass(frozen=True)
class Tick:
    """Time passes (the adapter sends one when a bet's answer is due): bets unanswered by then are rolled back."""
