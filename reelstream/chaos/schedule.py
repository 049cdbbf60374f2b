"""When the chaos run injects its faults (pure): a kill never lands inside the broker restart or the PostgreSQL stop,
nor close to another kill, so each kill's answer gap measures that kill alone."""

from __future__ import annotations

import random
from collections.abc import Sequence

BEFORE_S = 3.0
BROKER_CLEAR_S = 35.0
PG_CLEAR_S = 10.0
KILL_SPACING_S = 8.0
START_S = 3.0


def fault_schedule(
    rng: random.Random,
    services: Sequence[str],
    kills: int,
    window_s: float,
    broker_restart: bool,
    postgres_stop_s: float,
) -> list[tuple[float, str]]:
    """(seconds after the start, fault) sorted by time; the window grows when the kills do not fit in it."""
    window_s = max(window_s, fitting_window_s(kills, broker_restart, postgres_stop_s))
    steps: list[tuple[float, str]] = []
    blocked: list[tuple[float, float]] = []
    if broker_restart:
        at = window_s * 0.45
        steps.append((at, "broker restart"))
        blocked.append((at - BEFORE_S, at + BROKER_CLEAR_S))
    if postgres_stop_s > 0:
        at = window_s * 0.7
        steps.append((at, "postgres stop"))
        blocked.append((at - BEFORE_S, at + postgres_stop_s + PG_CLEAR_S))
    taken: list[float] = []
    for _ in range(kills):
        at = _free_moment(rng, window_s, blocked, taken)
        taken.append(at)
        steps.append((at, f"kill {rng.choice(list(services))}"))
    return sorted(steps)


def fitting_window_s(kills: int, broker_restart: bool, postgres_stop_s: float) -> float:
    """A window in which the kills fit between the blocked spans, with 1.6 × KILL_SPACING_S for each kill."""
    blocked = (BEFORE_S + BROKER_CLEAR_S if broker_restart else 0.0) + (
        BEFORE_S + postgres_stop_s + PG_CLEAR_S if postgres_stop_s > 0 else 0.0
    )
    return START_S + blocked + 1.6 * KILL_SPACING_S * kills


def _free_moment(rng: random.Random, window_s: float, blocked: list[tuple[float, float]], taken: list[float]) -> float:
    """A uniformly drawn moment outside the blocked spans and away from earlier kills (bounded tries, then the first
    free slot on a fine grid; the window is sized so that one exists)."""
    for _ in range(10_000):
        at = rng.uniform(START_S, window_s)
        if _free(at, blocked, taken):
            return at
    step = KILL_SPACING_S / 4
    at = START_S
    while at <= window_s:
        if _free(at, blocked, taken):
            return at
        at += step
    raise ValueError(f"no room for another kill in a {window_s:.0f} s window")


def _free(at: float, blocked: list[tuple[float, float]], taken: list[float]) -> bool:
    outside = all(not start <= at <= end for start, end in blocked)
    return outside and all(abs(at - other) >= KILL_SPACING_S for other in taken)
