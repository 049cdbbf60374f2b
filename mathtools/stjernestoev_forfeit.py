"""What a Stjernestøv player gives up by forfeiting a bonus ring to change stake: the ring's expected extra win."""

# From ring states a player actually holds (sampled along one long simulated session), each sample plays the next
# HORIZON_SPINS twice on the same splitmix64 words, once with the ring and once with it cleared; the mean difference of
# the main-game return is the forfeit's value. Common words make the difference's variance small, and after
# HORIZON_SPINS every circle the ring held has left it, so the horizon loses only the rare later effects of a changed
# explosion.

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from games.stjernestoev.analytics import fixed_ev_per_feature
from games.stjernestoev.batch import BUFFER_WORDS, REFILL_BELOW_WORDS, ring_is_empty, sim_spin, splitmix64_fill
from games.stjernestoev.kernel import COUNTERS_SIZE, EMPTY, N_CIRCLES, STATUS_OK, WORK_SIZE
from games.stjernestoev.model import load_model

HORIZON_SPINS = 10
SAMPLES = 200_000
GAP_SPINS = 3
SEED = 42_2026_12_06
RESULT_FILE = Path(__file__).resolve().parents[1] / "docs" / "math" / "stjernestoev" / "forfeit-value.json"
Z_99 = 2.5758293035489004


@njit(cache=True)
def _spin(ring, stake_index, model, state, words, cursor, counters, work, before, fixed_ev):
    """One paid spin on a splitmix64 stream (as simulate_batch plays it); the main-game return in hundredths."""
    before[:, :] = ring
    while True:
        if words.shape[0] - cursor[0] < REFILL_BELOW_WORDS or cursor[1] != 0:
            splitmix64_fill(state, words)
            cursor[0] = 0
            cursor[1] = 0
        if sim_spin(ring, stake_index, model, words, cursor, counters, work) == STATUS_OK:
            break
        ring[:, :] = before
    return float(counters[0]) + (fixed_ev if counters[1] >= 0 else 0.0)


@njit(cache=True)
def _horizon(ring, stake_index, model, seed, horizon, fixed_ev, counters, work, before):
    state = np.array([seed], np.uint64)
    words = np.empty(BUFFER_WORDS, np.uint64)
    splitmix64_fill(state, words)
    cursor = np.zeros(2, np.int64)
    total = 0.0
    for _ in range(horizon):
        total += _spin(ring, stake_index, model, state, words, cursor, counters, work, before, fixed_ev)
    return total


@njit(cache=True)
def forfeit_differences(model, stake_index, samples, gap, horizon, seed, fixed_ev):
    """Per sampled non-empty ring: return over `horizon` spins with the ring minus with it cleared (hundredths)."""
    out = np.empty(samples, np.float64)
    counters = np.zeros(COUNTERS_SIZE, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    before = np.zeros((N_CIRCLES, 2), np.int64)
    ring = np.zeros((N_CIRCLES, 2), np.int64)
    ring[:, 0] = EMPTY
    state = np.array([np.uint64(seed)], np.uint64)
    words = np.empty(BUFFER_WORDS, np.uint64)
    splitmix64_fill(state, words)
    cursor = np.zeros(2, np.int64)
    kept = np.empty((N_CIRCLES, 2), np.int64)
    cleared = np.empty((N_CIRCLES, 2), np.int64)
    done = 0
    pair_seed = np.uint64(seed) * np.uint64(6364136223846793005)
    while done < samples:
        for _ in range(gap):
            _spin(ring, stake_index, model, state, words, cursor, counters, work, before, 0.0)
        if ring_is_empty(ring):
            continue
        pair_seed += np.uint64(0x9E3779B97F4A7C15)
        kept[:, :] = ring
        cleared[:, :] = ring
        cleared[:, 0] = EMPTY
        cleared[:, 1] = 0
        with_ring = _horizon(kept, stake_index, model, pair_seed, horizon, fixed_ev, counters, work, before)
        without = _horizon(cleared, stake_index, model, pair_seed, horizon, fixed_ev, counters, work, before)
        out[done] = with_ring - without
        done += 1
    return out


def forfeit_value(*, samples: int = SAMPLES, model_version: str | None = None) -> dict[str, Any]:
    """The forfeit's mean value × stake with its interval at the 0.99 level, for the current (or given) model."""
    model = load_model(model_version) if model_version else load_model()
    fixed_ev = float(fixed_ev_per_feature(model)) * 100
    started = time.perf_counter()
    diffs = forfeit_differences(model.arrays, 0, samples, GAP_SPINS, HORIZON_SPINS, SEED, fixed_ev) / 100
    mean, sd = float(diffs.mean()), float(diffs.std(ddof=1))
    half = Z_99 * sd / math.sqrt(samples)
    return {
        "model_version": model.version,
        "model_sha256": model.sha256,
        "samples": samples,
        "gap_spins": GAP_SPINS,
        "horizon_spins": HORIZON_SPINS,
        "seed": SEED,
        "mean_x_stake": mean,
        "ci99_x_stake": [mean - half, mean + half],
        "sd_x_stake": sd,
        "share_zero": float((diffs == 0).mean()),
        "p99_x_stake": float(np.quantile(diffs, 0.99)),
        "max_x_stake": float(diffs.max()),
        "min_x_stake": float(diffs.min()),
        "seconds": time.perf_counter() - started,
    }


def write_forfeit_value(samples: int = SAMPLES) -> dict[str, Any]:
    figures = forfeit_value(samples=samples)
    RESULT_FILE.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    return figures
