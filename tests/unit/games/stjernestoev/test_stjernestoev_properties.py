"""Hypothesis properties over random boards and rings, against a plain-Python reading of the rules."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from games.stjernestoev import kernel
from games.stjernestoev.model import CIRCLES, POSITIONS
from stjernestoev_helpers import MODEL, PAY, REFILL_W, RING_START, pay_once

NEIGHBOURS = {p: set() for p in range(21)}
for a, b in MODEL.edges:
    NEIGHBOURS[a].add(b)
    NEIGHBOURS[b].add(a)

symbols = st.integers(min_value=0, max_value=3) | st.sampled_from([4, 5, 6, kernel.ASTRO])
boards = st.lists(symbols, min_size=21, max_size=21).map(lambda b: np.array(b, np.int64))
circles = st.sampled_from(
    [(kernel.EMPTY, 0), (kernel.ASTRO, 0)]
    + [(s, m) for s in range(7) for m in (2, 3, 4)]
    + [(kernel.WILD, m) for m in (2, 3, 4, 5)]
)
rings = st.lists(circles, min_size=5, max_size=5).map(lambda r: np.array(r, np.int64))


def reference_step(board: np.ndarray, ring: np.ndarray) -> tuple[int, set[str]]:
    """Clusters: components of one symbol through the graph, >= 5 positions, including an inner position."""
    win, removed = 0, set()
    for start in range(3):
        symbol = int(board[start])
        if symbol >= 7 or start in removed:
            continue
        component, frontier = {start}, [start]
        while frontier:
            for other in NEIGHBOURS[frontier.pop()]:
                if other not in component and board[other] == symbol:
                    component.add(other)
                    frontier.append(other)
        if len(component) < 5:
            continue
        reached = {c for c, touched in enumerate(MODEL.circle_touch) if component & set(touched)}
        multiplier = 1
        for c in sorted(reached):
            if ring[c, 0] in (symbol, kernel.WILD):
                multiplier *= int(ring[c, 1])
        win += int(PAY[symbol, len(component)]) * multiplier
        removed |= component
    return win, {POSITIONS[p] for p in removed}


@settings(max_examples=150, deadline=None)
@given(boards, rings)
def test_the_kernel_pays_exactly_what_the_rules_say(board, ring):
    step = pay_once(board, ring)
    assert (step.win_hundredths, step.removed) == reference_step(board, ring)
    for cluster in step.clusters:
        assert cluster.size >= 5 and cluster.positions & {"I0", "I1", "I2"}
        assert len({int(board[POSITIONS.index(p)]) for p in cluster.positions}) == 1


@settings(max_examples=100, deadline=None)
@given(boards, st.integers(min_value=0, max_value=(1 << 21) - 1), st.integers(min_value=0, max_value=2**63))
def test_rotation_keeps_survivor_order_per_ring_and_fills_every_gap(board, removed, seed):
    after = board.copy()
    words = np.random.default_rng(seed % 2**32).integers(0, 2**63, size=256, dtype=np.uint64)
    kernel.rotate_and_refill(
        after, removed, RING_START, REFILL_W, words, np.zeros(2, np.int64), True, np.zeros(21, np.int64)
    )
    for ring in range(3):
        start, end = RING_START[ring], RING_START[ring + 1]
        survivors = [int(board[p]) for p in range(start, end) if not (removed >> p) & 1]
        gaps = end - start - len(survivors)
        assert [int(s) for s in after[start + gaps : end]] == survivors
        assert all(0 <= s <= kernel.ASTRO and s != kernel.WILD for s in after[start:end])


@settings(max_examples=80, deadline=None)
@given(boards, rings)
def test_wins_never_shrink_when_a_circle_becomes_wild(board, ring):
    wild = ring.copy()
    wild[:, 0] = kernel.WILD
    wild[:, 1] = np.maximum(ring[:, 1], 2)
    assert pay_once(board, wild).win_hundredths >= pay_once(board, ring).win_hundredths
    assert len(CIRCLES) == 5
