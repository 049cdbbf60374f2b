"""Importance sampling of cluster awards: untilted it is the plain count (ratio 1), and tilted it agrees with the
plain rate of common awards within its error bar (the same kernel plays both)."""

from __future__ import annotations

import numpy as np

from games.stjernestoev.importance import importance_batch, stationary_rings
from games.stjernestoev.model import load_model
from mathtools.stjernestoev_odds import TILTS, log_q_over_p, symbol_odds

MODEL = load_model()
RINGS = stationary_rings(MODEL.arrays, 500, 3)


def test_with_the_true_law_every_ratio_is_one_so_the_sums_are_plain_counts():
    zero = np.zeros((1, 3, 8))
    sums, squares, hits = importance_batch(MODEL.arrays, RINGS, MODEL.arrays[2], zero, np.ones(1), 3000, 11)
    assert np.array_equal(sums, sums.round()) and np.all(squares >= sums)  # counts, and counts squared
    assert np.all(sums >= hits) and hits[0, 5] > 200  # red 5 is about 1 in 8 spins
    assert np.array_equal(sums[hits == 0], np.zeros(int((hits == 0).sum())))


def test_the_tilted_mixture_estimates_common_red_awards_like_the_plain_count():
    plain_sums, _, _ = importance_batch(
        MODEL.arrays, RINGS, MODEL.arrays[2], np.zeros((1, 3, 8)), np.ones(1), 20_000, 5
    )
    tilted = symbol_odds(MODEL, RINGS, 0, 2_000, 7)
    for size in (5, 6, 7, 8):
        plain = plain_sums[0, size] / 20_000
        assert abs(tilted["mean"][0, size] - plain) <= 4 * (tilted["se"][0, size] + (plain / 20_000) ** 0.5)


def test_the_mixture_holds_the_true_law_so_no_ratio_exceeds_the_number_of_tilts():
    table = log_q_over_p(MODEL.arrays[4], 6)
    assert TILTS[0] is None and np.allclose(table[0], 0)
