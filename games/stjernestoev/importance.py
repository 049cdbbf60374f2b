"""Importance sampling of Stjernestøv's rare cluster awards: the engine's own kernel plays tilted initial boards, each
spin weighted by its likelihood ratio (docs/math/stjernestoev/README.md)."""

from __future__ import annotations

import numpy as np
from numba import njit

from games.stjernestoev.batch import BUFFER_WORDS, REFILL_BELOW_WORDS, sim_spin, splitmix64_fill
from games.stjernestoev.kernel import (
    COUNTERS_SIZE,
    EMPTY,
    LOG_ASTRO,
    LOG_BOARD,
    LOG_CLUSTER,
    LOG_RING,
    LOG_STEP,
    N_CIRCLES,
    N_POS,
    N_SYMBOLS,
    STATUS_OK,
    WORK_SIZE,
    play_kernel,
)

LOG_WORDS = 1 << 16


@njit(cache=True)
def stationary_rings(model, count, seed):
    """The ring before each of `count` consecutive untilted spins of one player (after a 1,000-spin burn-in)."""
    rings = np.zeros((count, N_CIRCLES, 2), np.int64)
    ring = np.zeros((N_CIRCLES, 2), np.int64)
    ring[:, 0] = EMPTY
    before = ring.copy()
    state = np.array([seed], np.uint64)
    words = np.empty(BUFFER_WORDS, np.uint64)
    splitmix64_fill(state, words)
    cursor = np.zeros(2, np.int64)
    counters = np.zeros(COUNTERS_SIZE, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    for spin in range(count + 1000):
        if spin >= 1000:
            rings[spin - 1000] = ring
        before[:, :] = ring
        while True:
            if words.shape[0] - cursor[0] < REFILL_BELOW_WORDS or cursor[1] != 0:
                splitmix64_fill(state, words)
                cursor[0] = 0
                cursor[1] = 0
            if sim_spin(ring, 0, model, words, cursor, counters, work) == STATUS_OK:
                break
            ring[:, :] = before
    return rings


@njit(cache=True)
def _ratio_of_spin(log, n, ring_of, log_board, alpha, acc, awards):
    """Walk one spin's trace: count its paying clusters into `awards` and return the likelihood ratio of its initial
    board, true law over the mixture of tilts sampled (balance heuristic: 1 / Σ_j α_j q_j(board) / p(board), at most
    1 / α_true, so no weight explodes). Refills, circle entries and replacements use their true weights: ratio 1."""
    acc[:] = 0.0
    at = 0
    initial = True
    while at < n:
        code = log[at]
        if code == LOG_BOARD:
            if initial:
                for pos in range(N_POS):
                    acc += log_board[:, ring_of[pos], _column(log[at + 1 + pos])]
                initial = False
            at += 1 + N_POS
        elif code == LOG_CLUSTER:
            awards[log[at + 1], log[at + 2]] += 1
            at += 7
        elif code == LOG_STEP:
            at += 2
        elif code == LOG_RING:
            at += 3 + 2 * N_CIRCLES
        elif code == LOG_ASTRO:
            at += 5
        else:
            at += 1 + N_POS  # LOG_REPLACED
    mix = 0.0
    for j in range(alpha.shape[0]):
        mix += alpha[j] * np.exp(acc[j])
    return 1.0 / mix


@njit(cache=True)
def _column(symbol):
    return N_SYMBOLS if symbol == 8 else symbol


@njit(cache=True)
def importance_batch(tilted, rings, ring_of, log_board, alpha, spins, seed):
    """`spins` tilted spins; returns per (symbol, size) the sums of ratio × count and of its square, and the number
    of tilted spins holding each award."""
    sums = np.zeros((N_SYMBOLS, N_POS + 1), np.float64)
    squares = np.zeros((N_SYMBOLS, N_POS + 1), np.float64)
    hits = np.zeros((N_SYMBOLS, N_POS + 1), np.int64)
    awards = np.zeros((N_SYMBOLS, N_POS + 1), np.int64)
    state = np.array([seed], np.uint64)
    words = np.empty(BUFFER_WORDS * 4, np.uint64)
    splitmix64_fill(state, words)
    cursor = np.zeros(2, np.int64)
    log = np.zeros(LOG_WORDS, np.int64)
    log_n = np.zeros(2, np.int64)
    counters = np.zeros(COUNTERS_SIZE, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    ring = np.zeros((N_CIRCLES, 2), np.int64)
    acc = np.zeros(alpha.shape[0], np.float64)
    for spin in range(spins):
        while True:
            if words.shape[0] - cursor[0] < BUFFER_WORDS or cursor[1] != 0:
                splitmix64_fill(state, words)
                cursor[0] = 0
                cursor[1] = 0
            ring[:, :] = rings[spin % rings.shape[0]]
            log_n[0] = 0
            log_n[1] = 0
            if play_kernel(ring, 0, tilted, words, cursor, log, log_n, counters, work) == STATUS_OK:
                break
        awards[:, :] = 0
        ratio = _ratio_of_spin(log, log_n[0], ring_of, log_board, alpha, acc, awards)
        for s in range(N_SYMBOLS):
            for k in range(5, N_POS + 1):
                if awards[s, k] > 0:
                    value = ratio * awards[s, k]
                    sums[s, k] += value
                    squares[s, k] += value * value
                    hits[s, k] += 1
    return sums, squares, hits
