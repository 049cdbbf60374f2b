"""The monitor's time windows over broker time: which windows hold an instant, and which instants share them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WindowSpec:
    """A tumbling (step = size) or hopping (step < size) window, in seconds, kept `keep_s` after it closes."""

    name: str
    size_s: int
    step_s: int
    keep_s: int

    def __post_init__(self) -> None:
        assert self.size_s % self.step_s == 0, self
        assert self.keep_s >= self.size_s, self

    def bucket_ms(self, broker_ms: int) -> int:
        """Instants in the same bucket belong to the same windows: a batch's facts are grouped by it."""
        step_ms = self.step_s * 1000
        return broker_ms - broker_ms % step_ms

    def starts_ms(self, broker_ms: int) -> list[int]:
        """The start of every window holding this instant, oldest first."""
        step_ms, size_ms = self.step_s * 1000, self.size_s * 1000
        last = self.bucket_ms(broker_ms)
        return [start for start in range(last - size_ms + step_ms, last + 1, step_ms)]


MINUTE = WindowSpec("1m", 60, 60, 2 * 3600)
HOUR = WindowSpec("1h", 3600, 600, 2 * 86400)
DAY = WindowSpec("1d", 86400, 86400, 8 * 86400)
WINDOWS: tuple[WindowSpec, ...] = (MINUTE, HOUR, DAY)
