"""Hand-written fakes for the Rising Joker tests."""

from __future__ import annotations


class ScriptedRng:
    """A hand-written fake of SpinRng: below() and weighted() return scripted values in order."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.draws = 0

    def below(self, n: int) -> int:
        value = self.values.pop(0)
        assert 0 <= value < n, f"scripted {value} outside [0, {n})"
        self.draws += 1
        return value

    def weighted(self, weights) -> int:
        return self.below(len(weights))
