"""Observed return to player per game, with a confidence band (Z_95), from settled spins (statistics, not money)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.money import MICRO_PER_MINOR

Z_95 = 1.959964


@dataclass
class RtpSample:
    """Running sums for one game; a spin returns its exact house win plus its pool contribution (the par RTP basis)."""

    game: str
    spins: int = 0
    stake_minor: int = 0
    return_micro: int = 0
    sum_ratio: float = 0.0
    sum_ratio_sq: float = 0.0

    def add(self, stake_minor: int, return_micro: int) -> None:
        ratio = return_micro / (stake_minor * MICRO_PER_MINOR)
        self.spins += 1
        self.stake_minor += stake_minor
        self.return_micro += return_micro
        self.sum_ratio += ratio
        self.sum_ratio_sq += ratio * ratio

    @property
    def rtp(self) -> float:
        return self.return_micro / (self.stake_minor * MICRO_PER_MINOR) if self.stake_minor else math.nan

    @property
    def half_width(self) -> float:
        """1.96 standard errors of the mean per-spin return (stakes vary little within a game's band)."""
        if self.spins < 2:
            return math.inf
        mean = self.sum_ratio / self.spins
        variance = max(0.0, (self.sum_ratio_sq - self.spins * mean * mean) / (self.spins - 1))
        return Z_95 * math.sqrt(variance / self.spins)

    def as_json(self, par_rtp: float | None) -> dict:
        inside = None if par_rtp is None or self.spins < 2 else abs(self.rtp - par_rtp) <= self.half_width
        return {
            "game": self.game,
            "spins": self.spins,
            "stake_minor": self.stake_minor,
            "return_micro": self.return_micro,
            "rtp": self.rtp,
            "band_low": self.rtp - self.half_width,
            "band_high": self.rtp + self.half_width,
            "par_rtp": par_rtp,
            "par_inside_band": inside,
        }


def spin_return_micro(settled) -> int:
    """What a spin returns on the par sheet's basis: the exact house win (paid + breakage) plus the contribution."""
    return settled.house_win_minor * MICRO_PER_MINOR + settled.breakage_micro + settled.contribution_micro
