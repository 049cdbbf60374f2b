"""The units an amount is shown in: major (189.81 EUR), minor or micro (exact integers)."""

from __future__ import annotations

from enum import Enum


class Units(str, Enum):
    major = "major"
    minor = "minor"
    micro = "micro"
