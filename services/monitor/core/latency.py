"""Spin latency as a bounded log-scale histogram (mergeable across batches and partitions) and its percentiles."""

from __future__ import annotations

import bisect
import math

# Bucket upper bounds 10^(k/20) milliseconds, k = 0..100 (each a factor 10^(1/20) above the last); a percentile is
# reported as its bucket's bound.
BOUNDS_MS: tuple[float, ...] = tuple(10 ** (k / 20) for k in range(0, 101))


def bucket_of(latency_ms: int) -> int:
    return min(bisect.bisect_left(BOUNDS_MS, latency_ms), len(BOUNDS_MS) - 1)


def add(histogram: dict[str, int], latency_ms: int) -> None:
    key = str(bucket_of(latency_ms))
    histogram[key] = histogram.get(key, 0) + 1


def merge(into: dict[str, int], other: dict[str, int]) -> None:
    for key, count in other.items():
        into[key] = into.get(key, 0) + count


def percentile_ms(histogram: dict[str, int], q: float) -> float | None:
    """The bound of the bucket holding the q-quantile (q in (0, 1]); None for an empty histogram."""
    assert 0 < q <= 1, q
    total = sum(histogram.values())
    if total == 0:
        return None
    rank, seen = math.ceil(q * total), 0
    for key in sorted(histogram, key=int):
        seen += histogram[key]
        if seen >= rank:
            return round(BOUNDS_MS[int(key)], 1)
    raise AssertionError("the ranks add up to the total")
