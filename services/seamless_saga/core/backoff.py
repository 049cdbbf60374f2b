"""When the next attempt of an unacknowledged call is due: exponential back-off with jitter, in whole milliseconds.
The draw in [0, 1) is an argument (the core's random port), so the rule is a pure function."""

from __future__ import annotations

RETRY_BASE_MS = 1_000
# A call retried for a day is retried at most every five minutes, so an operator back from an outage is not kept
# waiting for long, and the attempts stay a few hundred a round.
RETRY_CAP_MS = 300_000


def delay_ms(attempt: int, draw: float) -> int:
    """The wait before attempt `attempt + 1`: half the capped exponential, plus up to as much again by `draw`."""
    assert attempt >= 1
    assert 0.0 <= draw < 1.0
    full_ms = min(RETRY_CAP_MS, RETRY_BASE_MS << min(attempt - 1, 20))
    return full_ms // 2 + int(draw * (full_ms - full_ms // 2))
