"""A sequential test of each cell's RTP against its par sheet, safe to look at after every spin: a time-uniform boundary
with a Bernstein correction, Bonferroni over the cells (docs/monitor.md, "Sequential test")."""

from __future__ import annotations

import math
from dataclasses import dataclass

from services.monitor.core.par import ParFigures
from shared.money import MICRO_PER_MINOR

ALPHA_FAMILY = 0.001
MAX_CELLS = 1_000
N0_SPINS = 1_000
ALPHA_CELL = ALPHA_FAMILY / (2 * MAX_CELLS)
LOG_INV_ALPHA = math.log(1 / ALPHA_CELL)


def boundary(n: int, par: ParFigures, correction_x: float) -> float:
    """How far S_n may stray on one side after n spins before the alarm (in stakes)."""
    variance, rho = n * par.sd * par.sd, N0_SPINS * par.sd * par.sd
    return math.sqrt((variance + rho) * (math.log1p(variance / rho) + 2 * LOG_INV_ALPHA)) + correction_x * LOG_INV_ALPHA


@dataclass(frozen=True)
class Crossing:
    side: str  # "low": pays less than par; "high": pays more
    spins: int
    deviation_x: float
    boundary_x: float


def new_state() -> dict:
    return {"spins": 0, "return_micro": 0, "capped_return_micro": 0, "low_at": None, "high_at": None}


def observe(state: dict, par: ParFigures, stake_minor: int, return_micro: int) -> Crossing | None:
    """Add one spin to the cell's sums (exact integers); the first crossing of each side is returned once."""
    assert stake_minor > 0, stake_minor
    stake_micro = stake_minor * MICRO_PER_MINOR
    cap_micro = int(par.max_win_x * stake_micro)
    state["spins"] += 1
    state["return_micro"] += return_micro
    state["capped_return_micro"] += min(return_micro, cap_micro)
    n = state["spins"]
    if state["low_at"] is None:
        low = state["return_micro"] / stake_micro - n * par.rtp
        bound = boundary(n, par, par.rtp / 3)
        if low < -bound:
            state["low_at"] = n
            return Crossing("low", n, low, bound)
    if state["high_at"] is None:
        high = state["capped_return_micro"] / stake_micro - n * par.rtp
        bound = boundary(n, par, par.max_win_x / 3)
        if high > bound:
            state["high_at"] = n
            return Crossing("high", n, high, bound)
    return None
