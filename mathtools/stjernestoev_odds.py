"""Odds of every Stjernestøv cluster award (symbol × size) by importance sampling, with a 0.99 CI per award."""

# Per symbol, spins are split equally over a mixture of initial-board laws: the true one and tilts that give the symbol
# a share p of each ring's weight (refills, circle entries and replacements keep their true weights). Big clusters of
# the other symbols mostly form one step after a big red cluster leaves (the survivors slide together), so for them the
# mixture also holds boards rich in both the symbol and red. Each spin is weighted by the balance-heuristic ratio
# p(board) / Σ_j α_j q_j(board), which never exceeds 1 / α_true, so the estimate is unbiased. Where the plain proof
# simulation counted an award often enough the par sheet uses that count and shows both.

from __future__ import annotations

import time
from typing import Any

import numpy as np

from games.stjernestoev.importance import importance_batch, stationary_rings
from games.stjernestoev.model import SYMBOLS, StjernestoevModel

Z_99 = 2.5758293035489004
TILTS = (None, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.92)  # None: the true board law
# Big clusters of the other symbols mostly form one step after a big red cluster leaves (the survivors slide
# together), so for them the mixture also holds boards rich in both the symbol and red: (symbol share, red share).
PAIRED = ((0.2, 0.4), (0.3, 0.4), (0.4, 0.35), (0.5, 0.3), (0.3, 0.5), (0.45, 0.45))
RED = 0


def tilted_rows(rows: np.ndarray, symbol: int, share: float | None, red_share: float | None = None) -> np.ndarray:
    """Integer weight rows where `symbol` (and red, if given) hold those shares of each row, the other symbols
    keeping their proportions of the rest."""
    out = rows.copy()
    if share is None:
        return out
    targets = {symbol: share} if red_share is None else {symbol: share, RED: red_share}
    for r in range(rows.shape[0]):
        rest = int(rows[r].sum() - sum(rows[r, s] for s in targets))
        for s, p in targets.items():
            out[r, s] = max(1, round(p * rest / (1 - sum(targets.values()))))
    return out


def components(symbol: int) -> list[tuple[float | None, float | None]]:
    """The mixture's initial-board laws for `symbol`: the true law, single tilts, and (for all but red) pairs."""
    singles = [(share, None) for share in TILTS]
    return singles if symbol == RED else singles + list(PAIRED)


def log_q_over_p(rows: np.ndarray, symbol: int) -> np.ndarray:
    """log(q_j / p) per mixture component j, ring and symbol column."""
    p = rows / rows.sum(axis=1, keepdims=True)
    tilted = [tilted_rows(rows, symbol, share, red) for share, red in components(symbol)]
    return np.stack([np.log(q / q.sum(axis=1, keepdims=True) / p) for q in tilted])


def symbol_odds(
    model: StjernestoevModel, rings: np.ndarray, symbol: int, spins_per_tilt: int, seed: int
) -> dict[str, np.ndarray]:
    """Per (symbol, size): the rate per spin and its standard error, from the pooled mixture sample."""
    board = model.arrays[4]
    board_table = log_q_over_p(board, symbol)
    mixture = components(symbol)
    alpha = np.full(len(mixture), 1 / len(mixture))
    sums = np.zeros((len(SYMBOLS), 22))
    squares = np.zeros((len(SYMBOLS), 22))
    hits = np.zeros((len(SYMBOLS), 22), np.int64)
    for j, (share, red) in enumerate(mixture):
        arrays = list(model.arrays)
        arrays[4] = tilted_rows(board, symbol, share, red)  # refills keep their true weights (a tilted refill spreads
        s, q, h = importance_batch(
            tuple(arrays),
            rings,
            arrays[2],
            board_table,
            alpha,  # the ratio over many draws)
            spins_per_tilt,
            seed + 1009 * j,
        )
        sums, squares, hits = sums + s, squares + q, hits + h
    n = spins_per_tilt * len(mixture)
    mean = sums / n
    return {"mean": mean, "se": np.sqrt(np.maximum(squares / n - mean**2, 0) / n), "hits": hits, "spins": n}


def award_odds(
    model: StjernestoevModel, *, spins_per_tilt: int, seed: int, ring_count: int = 20_000
) -> list[dict[str, Any]]:
    """Per cluster award: rate per spin, CI at the 0.99 level, method, sampled spins holding it."""
    started = time.perf_counter()
    rings = stationary_rings(model.arrays, ring_count, seed)
    rows = []
    for s, symbol in enumerate(SYMBOLS):
        run = symbol_odds(model, rings, s, spins_per_tilt, seed + 97 * s)
        for size in range(5, 22):
            rate, se = float(run["mean"][s, size]), float(run["se"][s, size])
            rows.append(
                {
                    "award": f"{size} {symbol}",
                    "symbol": symbol,
                    "size": size,
                    "rate": rate or None,
                    "one_in": 1 / rate if rate else None,
                    "ci99": [max(rate - Z_99 * se, 0.0), rate + Z_99 * se],
                    "relative_error_99": Z_99 * se / rate if rate else None,
                    "sampled_hits": int(run["hits"][s, size]),
                    "method": f"importance sampling ({run['spins']:,} spins, initial board from a mixture of the "
                    f"true law and {len(components(s)) - 1} tilts toward {symbol}"
                    f"{'' if s == RED else ' (some with red)'}, balance-heuristic weights)",
                }
            )
    for row in rows:
        row["seconds_all_awards"] = round(time.perf_counter() - started, 1)
    return rows
