"""The chaos run's figures from what it recorded (pure): percentiles of takeovers and recoveries, the latency of the
requests in flight across a fault and of those clear of every fault."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

# A request's (invocation, completion) in seconds on the fault clock; completion None: the client gave up.
Timing = tuple[float, float | None]


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The nearest-rank percentile (the smallest value with at least `fraction` of them at or below it)."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(fraction * len(ordered)) - 1)], 3)


def spread(values: Iterable[float | None], *fractions: float) -> dict[str, float | None]:
    """p50 / p99 / ... and max of the values given (None among them: not measured, left out)."""
    measured = [value for value in values if value is not None]
    found: dict[str, float | None] = {f"p{round(f * 100)}_s": percentile(measured, f) for f in fractions}
    found["max_s"] = round(max(measured), 3) if measured else None
    return found


def in_flight(timings: Iterable[Timing], at_s: float) -> list[float]:
    """Latencies of the requests invoked before `at_s` and answered after it."""
    return [done - invoked for invoked, done in timings if invoked < at_s and done is not None and done >= at_s]


def clear_of(timings: Iterable[Timing], windows: Sequence[tuple[float, float]]) -> list[float]:
    """Latencies of the answered requests whose whole life overlaps none of the windows (the fault-free ones)."""
    return [
        done - invoked
        for invoked, done in timings
        if done is not None and all(done < start or invoked > end for start, end in windows)
    ]
