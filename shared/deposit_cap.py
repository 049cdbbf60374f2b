"""Operator limits on cashier commands (pure): a deposit above its currency's cap is refused with a code unless an
operator overrides it. The CLI checks it before sending; the wallet core may call the same rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from shared.money import format_minor

DEPOSIT_ABOVE_CAP = "DEPOSIT_ABOVE_CAP"


@dataclass(frozen=True)
class CapExceeded:
    """Why a deposit needs an operator's override: a code and a message for the cashier."""

    code: str
    message: str


def deposit_refusal(
    amount_minor: int, currency: str, caps_minor: Mapping[str, int], override: bool = False
) -> CapExceeded | None:
    """Why a deposit must not go through without an operator override, or None (no cap for a currency: no limit)."""
    cap_minor = caps_minor.get(currency)
    if override or cap_minor is None or amount_minor <= cap_minor:
        return None
    return CapExceeded(
        DEPOSIT_ABOVE_CAP,
        f"{format_minor(amount_minor, currency)} is above the deposit cap of {format_minor(cap_minor, currency)}",
    )
