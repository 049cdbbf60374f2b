"""The service engine and the simulator decide spins with the same kernel; this checks the two paths around it.

The engine path (ChaCha20 words, trace, decoder, exact pricing) and the simulator's spin (`batch.sim_spin`, no trace)
must give the same cluster win, wheel segment and ring on the same (seed, state, stake). CI runs 3,000 inputs through
the slow Python decoder path plus 100,000 kernel-level inputs; `make math-stjernestoev-agreement` runs 1e6 engine
inputs and records the result in docs/math/stjernestoev/agreement.json.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathtools.stjernestoev import agreement
from games.stjernestoev.batch import sim_spin, splitmix64_fill
from games.stjernestoev.kernel import COUNTERS_SIZE, EMPTY, WORK_SIZE, play_kernel
from stjernestoev_helpers import CIRCLE_MULT, CIRCLE_SYM, MODEL


def test_engine_and_simulator_agree_outcome_for_outcome_on_shared_inputs():
    figures = agreement(inputs=3000, seed="ci")
    assert figures["mismatches"] == 0
    assert figures["winning_spins"] > 1000 and figures["features"] > 0


@njit(cache=True)
def _traced_vs_untraced(model, inputs, seed, circle_sym, circle_mult):
    state = np.array([seed], np.uint64)
    words = np.empty(512, np.uint64)
    log = np.zeros(8192, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    picks = np.empty(5, np.uint64)
    mismatches = 0
    for i in range(inputs):
        splitmix64_fill(state, words)
        splitmix64_fill(state, picks)
        ring = np.empty((5, 2), np.int64)
        for place in range(5):
            entry = np.int64(picks[place] % np.uint64(circle_sym.shape[0]))  # test input only, not a game draw
            ring[place, 0] = circle_sym[entry]
            ring[place, 1] = circle_mult[entry]
        traced, untraced = ring.copy(), ring.copy()
        c1, c2 = np.zeros(COUNTERS_SIZE, np.int64), np.zeros(COUNTERS_SIZE, np.int64)
        k1, k2 = np.zeros(2, np.int64), np.zeros(2, np.int64)
        s1 = play_kernel(traced, i % 17, model, words, k1, log, np.zeros(2, np.int64), c1, work)
        s2 = sim_spin(untraced, i % 17, model, words, k2, c2, work)
        if s1 != s2 or k1[0] != k2[0] or (c1 != c2).any() or (traced != untraced).any():
            mismatches += 1
    return mismatches


def test_tracing_never_changes_a_spin_on_100000_kernel_inputs():
    assert EMPTY == -1
    assert _traced_vs_untraced(MODEL.arrays, 100_000, 20261130, CIRCLE_SYM, CIRCLE_MULT) == 0
