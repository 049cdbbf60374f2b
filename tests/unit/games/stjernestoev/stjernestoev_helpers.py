"""Helpers for the Stjernestøv tests: hand-built boards and rings run through the kernel's own rule functions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.stjernestoev import kernel
from games.stjernestoev.model import CIRCLES, POSITIONS, SYMBOLS, load_model
from games.stjernestoev.outcome import circle_code

MODEL = load_model()
(ADJ, TOUCH, RING_OF, RING_START, BOARD_W, REFILL_W, REPLACE_W, CIRCLE_SYM, CIRCLE_MULT, CIRCLE_W, PAY, WHEEL_W) = (
    MODEL.arrays
)


def code(name: str | None) -> int:
    if name is None:
        return kernel.EMPTY
    if name == "astro":
        return kernel.ASTRO
    return SYMBOLS.index(name)


def board_of(symbols: dict[str, str], filler: list[str]) -> np.ndarray:
    """A board with `symbols` at named positions and the rest from `filler` in position order."""
    rest = iter(filler)
    return np.array([code(symbols[p]) if p in symbols else code(next(rest)) for p in POSITIONS], np.int64)


def ring_of(entries: list[dict | None]) -> np.ndarray:
    return np.array([circle_code(e) for e in entries], np.int64).reshape(kernel.N_CIRCLES, 2)


@dataclass
class Cluster:
    symbol: str
    size: int
    positions: set[str]
    factor_hundredths: int
    circles: set[str]
    multiplier: int


@dataclass
class Step:
    win_hundredths: int
    removed: set[str]
    clusters: list[Cluster]
    ring_after: np.ndarray


def _names(mask: int, labels) -> set[str]:
    return {label for i, label in enumerate(labels) if (mask >> i) & 1}


def pay_once(board: np.ndarray, ring: np.ndarray) -> Step:
    """One cascade step's pay decision on a hand-built board (the kernel's pay_step)."""
    ring = ring.copy()
    log = np.zeros(4096, np.int64)
    log_n = np.zeros(2, np.int64)
    work = np.zeros(kernel.WORK_SIZE, np.int64)
    scratch, _, _, stack, seen = kernel.split_work(work)
    win, removed = kernel.pay_step(
        board.copy(), ring, ADJ, TOUCH, PAY, log, log_n, scratch, np.zeros(kernel.COUNTERS_SIZE, np.int64), seen, stack
    )
    clusters, at = [], 0
    while at < log_n[0] and log[at] == kernel.LOG_CLUSTER:
        symbol, size, factor, mask, matching, mult = (int(v) for v in log[at + 1 : at + 7])
        clusters.append(
            Cluster(SYMBOLS[symbol], size, _names(mask, POSITIONS), factor, _names(matching, CIRCLES), mult)
        )
        at += 7
    return Step(int(win), _names(int(removed), POSITIONS), clusters, ring)


def words_for_indices(indices: list[int], weights_rows: list[np.ndarray]) -> np.ndarray:
    """Words that make draw_weighted return `indices[i]` from `weights_rows[i]` (the first point of that index)."""
    words = []
    for index, row in zip(indices, weights_rows):
        words.append(int(np.sum(row[:index])))
    return np.array(words, np.uint64)
