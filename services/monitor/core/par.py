"""What the par sheet promises per game, as the monitor's statistics need it (loaded by an adapter)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParFigures:
    """One game's par: the return per unit staked on the audit's basis (house win + breakage + pool contribution),
    the standard deviation of one spin's return and the largest return of one spin, both in stakes."""

    game: str
    rtp: float
    sd: float
    max_win_x: float

    def __post_init__(self) -> None:
        assert 0 < self.rtp < 2, self
        assert self.sd > 0, self
        assert self.max_win_x >= 1, self
