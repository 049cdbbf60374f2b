"""The house's credit of a sub-cent remainder a player can no longer complete: rounded up to a whole minor unit (DESIGN,
"one settlement per wager"), whether the ledger posts it or a seamless round's win carries it. Apart from
shared/money.py, whose bytes the released games' outcome manifest pins."""

from __future__ import annotations

from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR


def credit_minor(remainder_micro: int) -> int:
    """`remainder_micro` rounded up to whole minor units."""
    invariant(type(remainder_micro) is int, "remainder_micro must be an int")
    invariant(remainder_micro >= 0, "a remainder is not negative")
    return -(-remainder_micro // MICRO_PER_MINOR)
