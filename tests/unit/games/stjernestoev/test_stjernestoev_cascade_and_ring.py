"""Cascade rotation and refill, the bonus ring's shift and 5-spin lifetime, and the Astro Flash trigger."""

from __future__ import annotations

import numpy as np

from games.stjernestoev import kernel
from games.stjernestoev.model import POSITIONS
from stjernestoev_helpers import (
    CIRCLE_MULT,
    CIRCLE_SYM,
    CIRCLE_W,
    REFILL_W,
    REPLACE_W,
    RING_OF,
    RING_START,
    WHEEL_W,
    code,
    ring_of,
    words_for_indices,
)

BLUE_4X = {"symbol": "blue", "multiplier": 4}


def rotate(board: np.ndarray, removed: set[str], words: np.ndarray) -> np.ndarray:
    board = board.copy()
    mask = sum(1 << POSITIONS.index(p) for p in removed)
    cursor = np.zeros(2, np.int64)
    kernel.rotate_and_refill(board, mask, RING_START, REFILL_W, words, cursor, True, np.zeros(21, np.int64))
    assert cursor[1] == 0
    return board


def test_survivors_slide_clockwise_in_order_and_new_symbols_enter_at_the_12_oclock_positions():
    board = np.arange(21, dtype=np.int64) % 7
    words = words_for_indices([6, 5, 4], [REFILL_W[0], REFILL_W[1], REFILL_W[1]])  # bar, silver, purple
    after = rotate(board, {"I1", "M0", "M3"}, words)
    assert list(after[0:3]) == [code("bar"), board[0], board[2]]
    assert list(after[3:10]) == [code("silver"), code("purple"), board[4], board[5], board[7], board[8], board[9]]
    assert list(after[10:21]) == list(board[10:21])  # a ring without removals does not move


def test_refills_can_bring_astro_flash():
    after = rotate(np.zeros(21, np.int64), {"O5"}, words_for_indices([7], [REFILL_W[2]]))
    assert after[10] == kernel.ASTRO


def shift(ring: np.ndarray, entering: int) -> np.ndarray:
    ring = ring.copy()
    words = words_for_indices([entering], [CIRCLE_W])
    kernel.shift_ring(
        ring,
        CIRCLE_SYM,
        CIRCLE_MULT,
        CIRCLE_W,
        words,
        np.zeros(2, np.int64),
        np.zeros(0, np.int64),
        np.zeros(2, np.int64),
        np.zeros(kernel.LOG_RECORD_MAX, np.int64),
    )
    return ring


def entry_index(symbol: int, multiplier: int) -> int:
    return int(np.flatnonzero((CIRCLE_SYM == symbol) & (CIRCLE_MULT == multiplier))[0])


def test_a_bonus_symbol_enters_on_the_left_and_is_visible_for_exactly_5_spins():
    empty = entry_index(kernel.EMPTY, 0)
    ring = shift(ring_of([None] * 5), entry_index(code("blue"), 4))
    seen_at = []
    for _ in range(6):
        seen_at.append([p for p in range(5) if ring[p, 0] == code("blue")])
        ring = shift(ring, empty)
    assert seen_at == [[0], [1], [2], [3], [4], []]


def test_each_spin_moves_every_circle_one_place_clockwise_and_the_rightmost_leaves():
    ring = ring_of(
        [BLUE_4X, None, {"symbol": "wild", "multiplier": 5}, {"symbol": "astro"}, {"symbol": "red", "multiplier": 2}]
    )
    after = shift(ring, entry_index(kernel.WILD, 3))
    assert list(after[:, 0]) == [kernel.WILD, code("blue"), kernel.EMPTY, kernel.WILD, kernel.ASTRO]
    assert list(after[:, 1]) == [3, 4, 0, 5, 0]


def flash(board: np.ndarray, ring: np.ndarray, words: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    board, ring = board.copy(), ring.copy()
    segment = kernel.astro_flash(
        board,
        ring,
        RING_OF,
        REPLACE_W,
        WHEEL_W[0],
        words,
        np.zeros(2, np.int64),
        np.zeros(0, np.int64),
        np.zeros(2, np.int64),
        np.zeros(kernel.LOG_RECORD_MAX, np.int64),
    )
    return segment, board, ring


def with_astro(positions: list[int]) -> np.ndarray:
    board = np.zeros(21, np.int64)
    board[positions] = kernel.ASTRO
    return board


def test_two_astro_flash_do_not_start_the_feature_and_stay_where_they_are():
    segment, board, ring = flash(with_astro([0, 20]), ring_of([None] * 5), np.zeros(64, np.uint64))
    assert segment == -1 and list(np.flatnonzero(board == kernel.ASTRO)) == [0, 20]


def test_three_astro_flash_anywhere_spin_the_wheel_and_are_replaced_by_ordinary_symbols():
    words = np.array([int(WHEEL_W[0][:5].sum())] + [0] * 63, np.uint64)  # the first point of the 25x segment
    segment, board, _ = flash(with_astro([2, 9, 15]), ring_of([None] * 5), words)
    assert segment == 5
    assert kernel.ASTRO not in board and all(0 <= s < 7 for s in board)


def test_an_astro_flash_in_a_bonus_circle_counts_and_is_consumed_by_the_feature():
    ring = ring_of([None, {"symbol": "astro"}, BLUE_4X, None, None])
    segment, _, after = flash(with_astro([4, 11]), ring, np.zeros(64, np.uint64))
    assert segment == 0  # word 0 lands on the first segment: the supernova jackpot
    assert after[1, 0] == kernel.EMPTY and after[2, 0] == code("blue")
