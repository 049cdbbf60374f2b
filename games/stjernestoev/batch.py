"""A compiled simulation batch: one player carrying the bonus ring across spins, words from splitmix64. It calls the
same `play_kernel` as the service engine; only the word source differs (ChaCha20 there)."""

from __future__ import annotations

import numpy as np
from numba import njit

from games.stjernestoev.kernel import (
    COUNTER_HIST_AT,
    COUNTERS_SIZE,
    EMPTY,
    N_CIRCLES,
    STATUS_OK,
    WORK_SIZE,
    play_kernel,
)

BUFFER_WORDS = 1 << 14
REFILL_BELOW_WORDS = 1 << 12
# stats layout (int64): see STAT_NAMES; float sums are returned separately.
STAT_NAMES = (
    "spins",
    "cluster_hundredths",
    "wheel_fixed_hundredths",
    "hits",
    "features",
    "seg_supernova",
    "seg_jackpot",
    "seg_100x",
    "seg_60x",
    "seg_40x",
    "seg_25x",
    "max_win_hundredths",
    "winning_steps",
    "circles_exploded",
    "ring_nonempty_spins",
    "ring_wait_sum",
    "retries",
    "max_cluster_multiplier",
)


@njit(cache=True)
def splitmix64_fill(state, out):
    """Fill `out` with splitmix64 words; state is a 1-element uint64 array."""
    for i in range(out.shape[0]):
        state[0] += np.uint64(0x9E3779B97F4A7C15)
        z = state[0]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))


@njit(cache=True)
def ring_is_empty(ring):
    for place in range(N_CIRCLES):
        if ring[place, 0] != EMPTY:
            return False
    return True


@njit(cache=True)
def sim_spin(ring, stake_index, model, words, cursor, counters, work):
    """The simulator's spin: the engine's kernel without a trace."""
    log = np.empty(0, np.int64)
    log_n = np.zeros(2, np.int64)
    return play_kernel(ring, stake_index, model, words, cursor, log, log_n, counters, work)


@njit(cache=True)
def simulate_batch(model, stake_index, spins, seed, fixed_ev_hundredths, chunk_spins):
    """Play `spins` spins. Returns (int stats, [sum X, sum X^2], chunk sums of X, paying clusters by symbol x size
    flattened 7 x 22) where X is a spin's main-game
    return in hundredths of the stake with the wheel's fixed prize replaced by its exact mean (variance reduction)."""
    stats = np.zeros(len(STAT_NAMES), np.int64)
    sums = np.zeros(2, np.float64)
    chunks = np.zeros((spins + chunk_spins - 1) // chunk_spins, np.float64)
    fixed = np.array([0, 0, 10000, 6000, 4000, 2500], np.int64)
    state = np.array([seed], np.uint64)
    words = np.empty(BUFFER_WORDS, np.uint64)
    splitmix64_fill(state, words)
    cursor = np.zeros(2, np.int64)
    ring = np.zeros((N_CIRCLES, 2), np.int64)
    ring[:, 0] = EMPTY
    before = ring.copy()
    counters = np.zeros(COUNTERS_SIZE, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    run = 0
    for spin in range(spins):
        before[:, :] = ring
        while True:
            if words.shape[0] - cursor[0] < REFILL_BELOW_WORDS or cursor[1] != 0:
                splitmix64_fill(state, words)
                cursor[0] = 0
                cursor[1] = 0
            if sim_spin(ring, stake_index, model, words, cursor, counters, work) == STATUS_OK:
                break
            ring[:, :] = before
            stats[16] += 1
        cluster = counters[0]
        segment = counters[1]
        x = float(cluster)
        wheel = 0
        if segment >= 0:
            stats[4] += 1
            stats[5 + segment] += 1
            wheel = fixed[segment]
            x += fixed_ev_hundredths
        stats[1] += cluster
        stats[2] += wheel
        if cluster + wheel > 0:
            stats[3] += 1
        if cluster + wheel > stats[11]:
            stats[11] = cluster + wheel
        stats[12] += counters[2]
        stats[13] += counters[3]
        if counters[4] > stats[17]:
            stats[17] = counters[4]
        if ring_is_empty(ring):
            stats[15] += run * (run + 1) // 2
            run = 0
        else:
            stats[14] += 1
            run += 1
        sums[0] += x
        sums[1] += x * x
        chunks[spin // chunk_spins] += x
    stats[15] += run * (run + 1) // 2
    stats[0] = spins
    return stats, sums, chunks, counters[COUNTER_HIST_AT:].copy()
