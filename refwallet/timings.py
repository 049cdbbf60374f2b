"""How long the wallet took to answer each money call it answered (from its handler's start to its answer), so a
bench can state the operator's own p99 a call; a bounded record, read from a position on."""

from __future__ import annotations

# Past this many calls nothing more is recorded (a bounded memory for a test wallet); `dropped` counts them.
RECORDED_CALLS_MAX = 1_000_000


class CallTimings:
    def __init__(self, limit: int = RECORDED_CALLS_MAX) -> None:
        self.limit = limit
        self.durations_us: list[int] = []
        self.dropped = 0

    def record(self, duration_us: int) -> None:
        assert duration_us >= 0, f"a call cannot take {duration_us} µs"
        if len(self.durations_us) >= self.limit:
            self.dropped += 1
            return
        self.durations_us.append(duration_us)

    def since(self, position: int) -> dict:
        """The durations recorded after the first `position` of them, and the position to read on from."""
        assert position >= 0, f"a position cannot be {position}"
        return {
            "since": position,
            "next_since": len(self.durations_us),
            "durations_us": self.durations_us[position:],
            "dropped": self.dropped,
        }
