"""What an operator's answer means for the round: the spin's refusal code of a refused bet, and which outcomes
acknowledge a bet, a win or a rollback. Pure rules; the outbox acts on them."""

from __future__ import annotations

from seamless.hub88 import TO_STATUS, Hub88Status
from seamless.port import Answered, NoAnswer, Outcome, Status

# Not the player's doing: the operator's wallet failed or refused the integration; the bet is rolled back.
WALLET_UNAVAILABLE = "WALLET_UNAVAILABLE"
SPIN_REFUSAL: dict[Status, str] = {
    Status.INSUFFICIENT_FUNDS: "INSUFFICIENT_FUNDS",
    Status.LIMIT_REACHED: "LIMIT_EXCEEDED",
    # Disabled or locked at the operator: self-exclusion included, which the operator does not tell apart.
    Status.PLAYER_DISABLED: "ACCOUNT_CLOSED",
    Status.SESSION_GONE: "UNAUTHENTICATED",
    Status.CURRENCY_MISMATCH: "CURRENCY_MISMATCH",
    Status.UNKNOWN_GAME: "UNKNOWN_GAME",
    Status.DUPLICATE_CONFLICT: "DUPLICATE_CONFLICT",
    # A bet arriving after its own rollback: the wager stands refunded.
    Status.ALREADY_ROLLED_BACK: "WAGER_REFUNDED",
    Status.UNKNOWN_TRANSACTION: WALLET_UNAVAILABLE,
    Status.SIGNATURE_REFUSED: WALLET_UNAVAILABLE,
    Status.MALFORMED: WALLET_UNAVAILABLE,
    Status.ERROR: WALLET_UNAVAILABLE,
}
# Refusals after which the bet is known not to be applied (Hub88's rule): no rollback follows them.
_BET_SURELY_REFUSED = frozenset({Status.INSUFFICIENT_FUNDS, Status.LIMIT_REACHED})
# A rollback is done when the bet is undone now, was never applied, or was undone before.
_ROLLBACK_DONE = frozenset({Status.OK, Status.UNKNOWN_TRANSACTION, Status.ALREADY_ROLLED_BACK})


def bet_refusal(outcome: Outcome) -> str | None:
    """The spin's refusal code for a bet's outcome; None when the bet was accepted."""
    if isinstance(outcome, NoAnswer):
        return WALLET_UNAVAILABLE
    if outcome.status is Status.OK:
        return None
    return SPIN_REFUSAL[outcome.status]


def bet_needs_rollback(outcome: Outcome) -> bool:
    """Whether the bet must be rolled back: anything but an acceptance or a sure refusal leaves it in doubt."""
    if isinstance(outcome, NoAnswer):
        return True
    return outcome.status is not Status.OK and outcome.status not in _BET_SURELY_REFUSED


def win_acknowledged(outcome: Outcome) -> bool:
    """A win is settled only by an OK; anything else is retried (or, past its deadline, reported)."""
    return isinstance(outcome, Answered) and outcome.status is Status.OK


def rollback_acknowledged(outcome: Outcome) -> bool:
    return isinstance(outcome, Answered) and outcome.status in _ROLLBACK_DONE


def hub88_spin_refusal(code: str) -> str | None:
    """The spin's refusal code for a Hub88 status of a bet (None for RS_OK); an unknown code is the wallet's error."""
    try:
        status = TO_STATUS[Hub88Status(code)]
    except ValueError:
        return WALLET_UNAVAILABLE
    return None if status is Status.OK else SPIN_REFUSAL[status]
