"""Odds of every Stjernestøv cluster award (symbol × size) by importance sampling, with a 99 % CI per award.

Per symbol, spins are split equally over a mixture of initial-board laws: the true one and tilts that give the symbol
a share p of each ring's weight (refills, circle entries and replacements keep their true weights). Caveat, measured:
large clusters of the middle symbols also grow through cascades (repeated red removals concentrate the survivors),
which tilting the initial board samples poorly, so where the plain simulation counted an award often enough the par
sheet uses that count and shows both. Each spin is weighted by the
balance-heuristic ratio p(board) / Σ_j α_j q_j(board), which never exceeds 1 / α_true, so the estimate is unbiased
and its error bar honest; common awards are also counted by the plain proof simulation, printed side by side.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from games.stjernestoev.importance import importance_batch, stationary_rings
from games.stjernestoev.model import SYMBOLS, StjernestoevModel

Z_99 = 2.5758293035489004
TILTS = (None, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.92)  # None: the true board law


def tilted_rows(rows: np.ndarray, symbol: int, share: float | None) -> np.ndarray:
    """Integer weight rows where `symbol` holds `share` of each row (others keep their proportions)."""
    out = rows.copy()
    if share is None:
        return out
    for r in range(rows.shape[0]):
        others = int(rows[r].sum() - rows[r, symbol])
        out[r, symbol] = max(1, round(share * others / (1 - share)))
    return out


def log_q_over_p(rows: np.ndarray, symbol: int) -> np.ndarray:
    """log(q_j / p) per tilt j, ring and symbol column."""
    p = rows / rows.sum(axis=1, keepdims=True)
    tilted = [tilted_rows(rows, symbol, share) for share in TILTS]
    return np.stack([np.log(q / q.sum(axis=1, keepdims=True) / p) for q in tilted])


def symbol_odds(model: StjernestoevModel, rings: np.ndarray, symbol: int, spins_per_tilt: int,
                seed: int) -> dict[str, np.ndarray]:
    """Per (symbol, size): the rate per spin and its standard error, from the pooled mixture sample."""
    board = model.arrays[4]
    board_table = log_q_over_p(board, symbol)
    alpha = np.full(len(TILTS), 1 / len(TILTS))
    sums = np.zeros((len(SYMBOLS), 22))
    squares = np.zeros((len(SYMBOLS), 22))
    hits = np.zeros((len(SYMBOLS), 22), np.int64)
    for j, share in enumerate(TILTS):
        arrays = list(model.arrays)
        arrays[4] = tilted_rows(board, symbol, share)  # refills keep their true weights (a tilted refill spreads
        s, q, h = importance_batch(tuple(arrays), rings, arrays[2], board_table, alpha,  # the ratio over many draws)
                                   spins_per_tilt, seed + 1009 * j)
        sums, squares, hits = sums + s, squares + q, hits + h
    n = spins_per_tilt * len(TILTS)
    mean = sums / n
    return {"mean": mean, "se": np.sqrt(np.maximum(squares / n - mean**2, 0) / n), "hits": hits, "spins": n}


def award_odds(model: StjernestoevModel, *, spins_per_tilt: int, seed: int, ring_count: int = 20_000
               ) -> list[dict[str, Any]]:
    """Per cluster award: rate per spin, 99 % CI, method, sampled spins holding it."""
    started = time.perf_counter()
    rings = stationary_rings(model.arrays, ring_count, seed)
    rows = []
    for s, symbol in enumerate(SYMBOLS):
        run = symbol_odds(model, rings, s, spins_per_tilt, seed + 97 * s)
        for size in range(5, 22):
            rate, se = float(run["mean"][s, size]), float(run["se"][s, size])
            rows.append({"award": f"{size} {symbol}", "symbol": symbol, "size": size, "rate": rate or None,
                         "one_in": 1 / rate if rate else None, "ci99": [max(rate - Z_99 * se, 0.0), rate + Z_99 * se],
                         "relative_error_99": Z_99 * se / rate if rate else None,
                         "sampled_hits": int(run["hits"][s, size]),
                         "method": f"importance sampling ({run['spins']:,} spins, initial board from a mixture of the "
                                   f"true law and {len(TILTS) - 1} {symbol}-tilts, balance-heuristic weights)"})
    for row in rows:
        row["seconds_all_awards"] = round(time.perf_counter() - started, 1)
    return rows
