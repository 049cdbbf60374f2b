"""Decode the kernel's trace into the documented outcome JSON (docs/math/stjernestoev/README.md, 'Outcome JSON')."""

from __future__ import annotations

from typing import Any

import numpy as np

from shared.invariant import invariant
from games.stjernestoev import kernel
from games.stjernestoev.model import CIRCLES, POSITIONS, SEGMENTS, SYMBOLS

MICRO_PER_HUNDREDTH_MINOR = 10_000  # a factor in hundredths x a stake in minor units -> micro-units


def symbol_name(code: int) -> str | None:
    if code == kernel.EMPTY:
        return None
    if code == kernel.WILD:
        return "wild"
    if code == kernel.ASTRO:
        return "astro"
    return SYMBOLS[code]


def circle_json(symbol: int, multiplier: int) -> dict[str, Any] | None:
    """A bonus circle's content: null (empty), {"symbol": "astro"} or {"symbol": s, "multiplier": m}."""
    if symbol == kernel.EMPTY:
        return None
    if symbol == kernel.ASTRO:
        return {"symbol": "astro"}
    return {"symbol": symbol_name(symbol), "multiplier": int(multiplier)}


def circle_code(entry: dict[str, Any] | None) -> tuple[int, int]:
    """The inverse of circle_json, validating the entry."""
    if entry is None:
        return kernel.EMPTY, 0
    symbol = entry["symbol"]
    if symbol == "astro":
        invariant(set(entry) == {"symbol"}, "an Astro Flash circle carries no multiplier")
        return kernel.ASTRO, 0
    invariant(set(entry) == {"symbol", "multiplier"}, "a bonus symbol carries a multiplier")
    multiplier = entry["multiplier"]
    if symbol == "wild":
        invariant(multiplier in (2, 3, 4, 5), "WILD multipliers are 2..5")
        return kernel.WILD, multiplier
    invariant(symbol in SYMBOLS, "a bonus symbol is one of the 7 symbols, WILD or Astro Flash")
    invariant(multiplier in (2, 3, 4), "symbol multipliers are 2..4")
    return SYMBOLS.index(symbol), multiplier


def _names(mask: int, labels: tuple[str, ...]) -> list[str]:
    return [label for index, label in enumerate(labels) if (mask >> index) & 1]


def factor_text(hundredths: int) -> str:
    whole, part = divmod(hundredths, 100)
    return f"{whole}.{part:02d}"


class _Decoder:
    """Walks the trace once, tracking the bonus ring as circles explode or are consumed."""

    def __init__(self, log: np.ndarray, stake_minor: int) -> None:
        self.log = [int(v) for v in log]
        self.at = 0
        self.stake_minor = stake_minor
        self.ring: list[list[int]] = []

    def take(self, count: int) -> list[int]:
        values = self.log[self.at : self.at + count]
        self.at += count
        return values

    def board(self) -> list[str | None]:
        return [symbol_name(code) for code in self.take(kernel.N_POS)]

    def ring_json(self) -> list[dict[str, Any] | None]:
        return [circle_json(s, m) for s, m in self.ring]

    def cluster(self) -> dict[str, Any]:
        symbol, size, factor, mask, matching, multiplier = self.take(6)
        circles = [
            {"circle": CIRCLES[p], **circle_json(*self.ring[p])} for p in range(len(CIRCLES)) if (matching >> p) & 1
        ]
        return {
            "symbol": SYMBOLS[symbol],
            "size": size,
            "positions": _names(mask, POSITIONS),
            "factor": factor_text(factor),
            "factor_hundredths": factor,
            "circles": circles,
            "multiplier": multiplier,
            "win_hundredths": factor * multiplier,
            "win_micro": factor * multiplier * self.stake_minor * MICRO_PER_HUNDREDTH_MINOR,
        }

    def cascades(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = []
        while self.at < len(self.log) and self.log[self.at] == kernel.LOG_CLUSTER:
            clusters = []
            while self.log[self.at] == kernel.LOG_CLUSTER:
                self.at += 1
                clusters.append(self.cluster())
            invariant(self.take(1) == [kernel.LOG_STEP], "a step's clusters end with a STEP record")
            exploded = self.take(1)[0]
            for place in range(len(CIRCLES)):
                if (exploded >> place) & 1:
                    self.ring[place] = [kernel.EMPTY, 0]
            invariant(self.take(1) == [kernel.LOG_BOARD], "a step ends with the refilled board")
            steps.append(
                {
                    "step": len(steps) + 1,
                    "clusters": clusters,
                    "exploded_circles": _names(exploded, CIRCLES),
                    "win_hundredths": sum(c["win_hundredths"] for c in clusters),
                    "board_after": self.board(),
                }
            )
        return steps

    def astro(self) -> dict[str, Any] | None:
        if self.at >= len(self.log) or self.log[self.at] != kernel.LOG_ASTRO:
            return None
        self.at += 1
        count, board_mask, circle_mask, segment = self.take(4)
        for place in range(len(CIRCLES)):
            if (circle_mask >> place) & 1:
                self.ring[place] = [kernel.EMPTY, 0]
        invariant(self.take(1) == [kernel.LOG_REPLACED], "the feature ends with the replaced board")
        return {
            "count": count,
            "board_positions": _names(board_mask, POSITIONS),
            "circles_consumed": _names(circle_mask, CIRCLES),
            "wheel_segment": SEGMENTS[segment],
            "board_after_replacement": self.board(),
            "cascades": self.cascades(),
        }


def decode(log: np.ndarray, stake_minor: int) -> dict[str, Any]:
    """The step sequence of one spin: the ring shift, initial board, cascades, Astro Flash, ring after."""
    decoder = _Decoder(log, stake_minor)
    invariant(decoder.take(1) == [kernel.LOG_RING], "a trace starts with the ring shift")
    shifted = decoder.take(2 * len(CIRCLES) + 2)
    decoder.ring = [[shifted[2 * p], shifted[2 * p + 1]] for p in range(len(CIRCLES))]
    ring_at_start = decoder.ring_json()
    invariant(decoder.take(1) == [kernel.LOG_BOARD], "the initial board follows the ring shift")
    initial = decoder.board()
    cascades = decoder.cascades()
    astro = decoder.astro()
    invariant(decoder.at == len(decoder.log), "the whole trace is decoded")
    return {
        "bonus_ring_at_start": ring_at_start,
        "bonus_circle_entered": ring_at_start[0],
        "bonus_circle_left": circle_json(shifted[-2], shifted[-1]),
        "initial_board": initial,
        "cascades": cascades,
        "astro_flash": astro,
        "bonus_ring_after": decoder.ring_json(),
    }
