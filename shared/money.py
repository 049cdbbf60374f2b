"""Money as integers: minor units per currency, micro-units for pools, and exact division helpers.

One minor unit (a cent, an øre) is 1,000,000 micro-units, so a contribution of `ppm` parts per million of a stake
in minor units is exactly `stake_minor * ppm` micro-units: no rounding ever happens on the way into a pool.
"""

from __future__ import annotations

from typing import Literal, Sequence

from shared.invariant import invariant

Currency = Literal["EUR", "DKK"]
CURRENCIES: tuple[str, ...] = ("EUR", "DKK")
MINOR_DIGITS: dict[str, int] = {"EUR": 2, "DKK": 2}
MICRO_PER_MINOR = 1_000_000
PPM = 1_000_000


def minor_to_micro(amount_minor: int) -> int:
    """Exact conversion of minor units to micro-units."""
    invariant(type(amount_minor) is int, "amount_minor must be an int")
    return amount_minor * MICRO_PER_MINOR


def micro_floor_to_minor(amount_micro: int) -> tuple[int, int]:
    """Split micro-units into whole minor units (rounded down) and the remainder in micro-units."""
    invariant(type(amount_micro) is int, "amount_micro must be an int")
    invariant(amount_micro >= 0, "only non-negative amounts are rounded down")
    whole_minor, remainder_micro = divmod(amount_micro, MICRO_PER_MINOR)
    return whole_minor, remainder_micro


def contribution_micro(stake_minor: int, rate_ppm: int) -> int:
    """The exact pool contribution of a stake at `rate_ppm` parts per million, in micro-units."""
    invariant(stake_minor >= 0, "stake must not be negative")
    invariant(0 <= rate_ppm <= PPM, "rate must be within 0..1,000,000 ppm")
    return stake_minor * rate_ppm


def split_by_weights(amount: int, weights: Sequence[int]) -> list[int]:
    """Split `amount` in proportion to `weights`, exactly: floors first, then the remainder one unit at a time
    to the largest fractional parts (ties to the earlier weight). The parts always sum to `amount`."""
    invariant(amount >= 0, "amount must not be negative")
    invariant(len(weights) > 0, "at least one weight")
    invariant(all(w >= 0 for w in weights), "weights must not be negative")
    total = sum(weights)
    invariant(total > 0, "weights must not all be zero")
    parts = [amount * w // total for w in weights]
    fractions = [amount * w % total for w in weights]
    left = amount - sum(parts)
    for index in sorted(range(len(weights)), key=lambda i: (-fractions[i], i))[:left]:
        parts[index] += 1
    invariant(sum(parts) == amount, "split parts must sum to the amount")
    return parts


def format_minor(amount_minor: int, currency: str) -> str:
    """Human display of minor units, e.g. 1950 DKK -> '19.50 DKK' (display only, never parsed back)."""
    digits = MINOR_DIGITS[currency]
    sign = "-" if amount_minor < 0 else ""
    whole, frac = divmod(abs(amount_minor), 10**digits)
    return f"{sign}{whole:,}.{frac:0{digits}d} {currency}"
