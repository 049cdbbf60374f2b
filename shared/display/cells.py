"""What a cell of a read command's output holds: money with its unit and currency, times, counts, words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "code", "number", "money", "time", "flag"]  # code: an id or reference, never wrapped


@dataclass(frozen=True)
class Money:
    """An exact amount: `unit` says whether `amount` counts minor units (cents, øre) or micro-units (pools)."""

    amount: int
    currency: str
    unit: Literal["minor", "micro"] = "minor"

    @classmethod
    def micro(cls, amount_micro: int, currency: str) -> "Money":
        return cls(amount_micro, currency, "micro")


@dataclass(frozen=True)
class Column:
    """One column: `key` is its stable JSON/CSV field name, `header` what a person reads.

    `priority` orders what a narrow terminal drops first (lowest first); None means never dropped."""

    key: str
    header: str
    kind: Kind = "text"
    priority: int | None = None

    @property
    def right_aligned(self) -> bool:
        return self.kind in ("number", "money")
