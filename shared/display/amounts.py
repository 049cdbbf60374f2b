"""Amounts for display and for scripts, in major units (default), minor units or micro-units."""

from __future__ import annotations

from shared.money import MICRO_PER_MINOR, MINOR_DIGITS, format_minor

from shared.display.cells import Money
from shared.display.units import Units


def as_micro(money: Money) -> int:
    return money.amount * MICRO_PER_MINOR if money.unit == "minor" else money.amount


def rounded_minor(money: Money) -> int:
    """Minor units, micro-units rounded half away from zero (display only: --units micro is exact)."""
    if money.unit == "minor":
        return money.amount
    whole, rest = divmod(abs(money.amount), MICRO_PER_MINOR)
    whole += 1 if 2 * rest >= MICRO_PER_MINOR else 0
    return -whole if money.amount < 0 else whole


def _decimal(amount_micro: int, scale_digits: int, min_digits: int) -> str:
    """An exact decimal string of amount_micro / 10**scale_digits with at least min_digits after the point."""
    sign = "-" if amount_micro < 0 else ""
    whole, frac = divmod(abs(amount_micro), 10**scale_digits)
    digits = f"{frac:0{scale_digits}d}".rstrip("0").ljust(min_digits, "0") if scale_digits else ""
    return f"{sign}{whole}" + (f".{digits}" if digits else "")


def cell_text(money: Money, units: Units) -> str:
    """What a table shows: '189.81 EUR' and '-2.00 EUR' in major units; exact integers otherwise."""
    if units is Units.major:
        return format_minor(rounded_minor(money), money.currency)
    if units is Units.micro:
        return f"{as_micro(money):,} {money.currency}"
    micro = as_micro(money)
    if micro % MICRO_PER_MINOR == 0:
        return f"{micro // MICRO_PER_MINOR:,} {money.currency}"
    whole, _, fraction = _decimal(micro, 6, 1).partition(".")
    return f"{int(whole):,}.{fraction} {money.currency}" if whole != "-0" else f"-0.{fraction} {money.currency}"


def machine_value(money: Money, units: Units) -> int | str:
    """What JSON and CSV carry: an exact decimal string in major units, an exact integer in minor or micro units
    (a minor amount with a micro remainder stays exact as a decimal string)."""
    micro = as_micro(money)
    if units is Units.micro:
        return micro
    if units is Units.minor:
        return micro // MICRO_PER_MINOR if micro % MICRO_PER_MINOR == 0 else _decimal(micro, 6, 1)
    digits = MINOR_DIGITS[money.currency]
    return _decimal(micro, 6 + digits, digits)


def exact_major(money: Money) -> str:
    """Major units with every digit a micro amount needs, e.g. '0.005 EUR' (recall and proofs: nothing rounded)."""
    return f"{machine_value(money, Units.major)} {money.currency}"
