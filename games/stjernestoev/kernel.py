"""The Stjernestøv rules as compiled numba kernels: the ONE implementation the service engine and the simulator share.

Everything is integers. A spin reads 64-bit words from a `words` array (the service fills it from the ChaCha20 spin
RNG, the simulator from splitmix64) through `cursor` = [next word index, overflow flag], maps them to ranges exactly
as `SpinRng.below` does (bitmask rejection, no modulo), and writes a compact trace into `log` for the outcome JSON.
Symbols: 0..6 red..BAR, 7 WILD (bonus circles only), 8 Astro Flash, -1 empty. Wins are in hundredths of the stake.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_POS = 21
N_INNER = 3
N_CIRCLES = 5
N_SYMBOLS = 7
WILD = 7
ASTRO = 8
EMPTY = -1
ASTRO_TRIGGER = 3

# Trace record codes (decoded by outcome.py).
LOG_RING = 1  # 5 x (symbol, multiplier) after the shift, then (symbol, multiplier) of the circle that left
LOG_BOARD = 2  # 21 symbols
LOG_CLUSTER = 3  # symbol, size, factor_hundredths, position mask, matching circle mask, multiplier
LOG_STEP = 4  # exploded circle mask (a BOARD record with the refilled board follows)
LOG_ASTRO = 5  # count, board mask, circle mask, wheel segment
LOG_REPLACED = 6  # a BOARD record with the Astro Flash replacements follows
LOG_RECORD_MAX = 1 + 2 * N_CIRCLES + 2 + N_POS
# The caller's int64 workspace: trace scratch, board, survivors, search stack, seen flags (no allocation per spin).
WORK_SIZE = LOG_RECORD_MAX + 4 * N_POS

# counters: [cluster win, wheel segment, paying steps, circles exploded, largest cluster multiplier], then a
# histogram of paying clusters by (symbol, size) that the simulator accumulates across spins (never reset here).
COUNTER_HIST_AT = 5
COUNTERS_SIZE = COUNTER_HIST_AT + N_SYMBOLS * (N_POS + 1)

STATUS_OK = 0
STATUS_WORDS_EXHAUSTED = 1
STATUS_LOG_FULL = 2


@njit(cache=True)
def draw_below(words, cursor, n):
    """A uniform integer in [0, n): low bits of one word, rejected while >= n (as SpinRng.below)."""
    if n == 1:
        return 0
    m = n - 1  # smear the highest bit down: (1 << bit_length(n - 1)) - 1
    m |= m >> 1
    m |= m >> 2
    m |= m >> 4
    m |= m >> 8
    m |= m >> 16
    m |= m >> 32
    mask = np.uint64(m)
    limit = np.uint64(n)
    while True:
        index = cursor[0]
        if index >= words.shape[0]:
            cursor[1] = 1
            return 0
        cursor[0] = index + 1
        value = words[index] & mask
        if value < limit:
            return np.int64(value)


@njit(cache=True)
def draw_weighted(words, cursor, weights):
    """An index drawn with probability weights[i] / sum(weights) (as SpinRng.weighted)."""
    total = 0
    for weight in weights:
        total += weight
    point = draw_below(words, cursor, total)
    for index in range(weights.shape[0]):
        if point < weights[index]:
            return index
        point -= weights[index]
    return weights.shape[0] - 1


@njit(cache=True)
def log_put(log, log_n, values, count):
    """Append `count` values to the trace; on overflow set log_n[1] and keep playing (the caller retries)."""
    if log.shape[0] == 0:
        return
    start = log_n[0]
    if start + count > log.shape[0]:
        log_n[1] = 1
        return
    for offset in range(count):
        log[start + offset] = values[offset]
    log_n[0] = start + count


@njit(cache=True)
def log_board(log, log_n, code, board, scratch):
    scratch[0] = code
    for pos in range(N_POS):
        scratch[1 + pos] = board[pos]
    log_put(log, log_n, scratch, 1 + N_POS)


@njit(cache=True)
def draw_symbol(words, cursor, weights_row, has_astro):
    """A board symbol from a ring's weight row; the last column of an Astro-capable row is Astro Flash."""
    column = draw_weighted(words, cursor, weights_row)
    if has_astro and column == N_SYMBOLS:
        return ASTRO
    return column


@njit(cache=True)
def shift_ring(ring, circle_sym, circle_mult, circle_w, words, cursor, log, log_n, scratch):
    """Every circle moves one place clockwise: the rightmost (4) leaves, a drawn circle enters on the left (0)."""
    left_sym = ring[N_CIRCLES - 1, 0]
    left_mult = ring[N_CIRCLES - 1, 1]
    for place in range(N_CIRCLES - 1, 0, -1):
        ring[place, 0] = ring[place - 1, 0]
        ring[place, 1] = ring[place - 1, 1]
    entry = draw_weighted(words, cursor, circle_w)
    ring[0, 0] = circle_sym[entry]
    ring[0, 1] = circle_mult[entry]
    scratch[0] = LOG_RING
    for place in range(N_CIRCLES):
        scratch[1 + 2 * place] = ring[place, 0]
        scratch[2 + 2 * place] = ring[place, 1]
    scratch[1 + 2 * N_CIRCLES] = left_sym
    scratch[2 + 2 * N_CIRCLES] = left_mult
    log_put(log, log_n, scratch, 3 + 2 * N_CIRCLES)


@njit(cache=True)
def draw_board(board, ring_of, board_w, words, cursor):
    """The initial board: each position independently from its ring's weights, in position order."""
    for pos in range(N_POS):
        board[pos] = draw_symbol(words, cursor, board_w[ring_of[pos]], True)


@njit(cache=True)
def cluster_from(board, adj, start, seen, stack):
    """The bit mask and size of the same-symbol component of `start` (board positions only)."""
    symbol = board[start]
    mask = np.int64(1) << start
    seen[start] = 1
    stack[0] = start
    top = 1
    size = 0
    while top > 0:
        top -= 1
        pos = stack[top]
        size += 1
        for k in range(adj.shape[1]):
            other = adj[pos, k]
            if other >= 0 and seen[other] == 0 and board[other] == symbol:
                seen[other] = 1
                mask |= np.int64(1) << other
                stack[top] = other
                top += 1
    return mask, size


@njit(cache=True)
def circles_reached(mask, touch):
    """The mask of bonus circles that a set of board positions touches through the graph."""
    reached = 0
    for pos in range(N_POS):
        if (mask >> pos) & 1:
            for k in range(touch.shape[1]):
                if touch[pos, k] >= 0:
                    reached |= 1 << touch[pos, k]
    return reached


@njit(cache=True)
def cluster_multiplier(symbol, reached, ring):
    """The matching circles (same symbol or WILD) among those reached, and the product of their multipliers,
    applied in ring order left to right."""
    matching = 0
    multiplier = 1
    for place in range(N_CIRCLES):
        if (reached >> place) & 1:
            content = ring[place, 0]
            if content == symbol or content == WILD:
                matching |= 1 << place
                multiplier *= ring[place, 1]
    return matching, multiplier


@njit(cache=True)
def rotate_and_refill(board, removed, ring_start, refill_w, words, cursor, has_astro, survivors):
    """Per ring: survivors slide clockwise (keeping their order) to the ring's last positions, closing the gaps;
    new symbols enter at the ring's first positions (the 12 o'clock gate), drawn in position order."""
    for ring_index in range(3):
        start = ring_start[ring_index]
        end = ring_start[ring_index + 1]
        count = 0
        for pos in range(start, end):
            if not (removed >> pos) & 1:
                survivors[count] = board[pos]
                count += 1
        gaps = end - start - count
        if gaps == 0:
            continue
        for offset in range(count):
            board[start + gaps + offset] = survivors[offset]
        for pos in range(start, start + gaps):
            board[pos] = draw_symbol(words, cursor, refill_w[ring_index], has_astro)


@njit(cache=True)
def pay_step(board, ring, adj, touch, pay, log, log_n, scratch, counters, seen, stack):
    """Find this step's paying clusters (>= 5 equal symbols including an inner position), price each with the
    circles it reaches, explode the matching circles once (after every cluster of the step used them).
    Returns (win in hundredths of the stake x multipliers, removed position mask)."""
    seen[:] = 0
    removed = np.int64(0)
    exploded = 0
    win = np.int64(0)
    for start in range(N_INNER):
        symbol = board[start]
        if seen[start] != 0 or symbol < 0 or symbol >= N_SYMBOLS:
            continue
        mask, size = cluster_from(board, adj, start, seen, stack)
        if size < 5:
            continue
        matching, multiplier = cluster_multiplier(symbol, circles_reached(mask, touch), ring)
        factor = pay[symbol, size]
        win += factor * multiplier
        counters[COUNTER_HIST_AT + symbol * (N_POS + 1) + size] += 1
        if multiplier > counters[4]:
            counters[4] = multiplier
        removed |= mask
        exploded |= matching
        scratch[0] = LOG_CLUSTER
        scratch[1] = symbol
        scratch[2] = size
        scratch[3] = factor
        scratch[4] = mask
        scratch[5] = matching
        scratch[6] = multiplier
        log_put(log, log_n, scratch, 7)
    if removed != 0:
        for place in range(N_CIRCLES):
            if (exploded >> place) & 1:
                ring[place, 0] = EMPTY
                ring[place, 1] = 0
                counters[3] += 1
        counters[2] += 1
        scratch[0] = LOG_STEP
        scratch[1] = exploded
        log_put(log, log_n, scratch, 2)
    return win, removed


@njit(cache=True)
def run_cascades(board, ring, adj, touch, pay, ring_start, refill_w, words, cursor, log, log_n, work, counters):
    """Pay, remove, rotate and refill while there are wins (bounded only by the words available)."""
    scratch, _, survivors, stack, seen = split_work(work)
    total = np.int64(0)
    while cursor[1] == 0:
        win, removed = pay_step(board, ring, adj, touch, pay, log, log_n, scratch, counters, seen, stack)
        if removed == 0:
            break
        total += win
        rotate_and_refill(board, removed, ring_start, refill_w, words, cursor, True, survivors)
        log_board(log, log_n, LOG_BOARD, board, scratch)
    return total


@njit(cache=True)
def astro_flash(board, ring, ring_of, replace_w, wheel_row, words, cursor, log, log_n, scratch):
    """Checked once, when the spin's cascades end: 3+ Astro Flash on board and circles spin the wheel; the circles'
    Astro Flash are consumed, the board's are replaced for free (no Astro Flash among replacements).
    Returns the wheel segment, or -1 when the feature did not start."""
    board_mask = np.int64(0)
    circle_mask = 0
    count = 0
    for pos in range(N_POS):
        if board[pos] == ASTRO:
            board_mask |= np.int64(1) << pos
            count += 1
    for place in range(N_CIRCLES):
        if ring[place, 0] == ASTRO:
            circle_mask |= 1 << place
            count += 1
    if count < ASTRO_TRIGGER:
        return -1
    segment = draw_weighted(words, cursor, wheel_row)
    for place in range(N_CIRCLES):
        if (circle_mask >> place) & 1:
            ring[place, 0] = EMPTY
            ring[place, 1] = 0
    for pos in range(N_POS):
        if (board_mask >> pos) & 1:
            board[pos] = draw_symbol(words, cursor, replace_w[ring_of[pos]], False)
    scratch[0] = LOG_ASTRO
    scratch[1] = count
    scratch[2] = board_mask
    scratch[3] = circle_mask
    scratch[4] = segment
    log_put(log, log_n, scratch, 5)
    log_board(log, log_n, LOG_REPLACED, board, scratch)
    return segment


@njit(cache=True)
def split_work(work):
    """The workspace's parts: scratch, board, survivors, stack, seen."""
    at = LOG_RECORD_MAX
    return (
        work[:at],
        work[at : at + N_POS],
        work[at + N_POS : at + 2 * N_POS],
        work[at + 2 * N_POS : at + 3 * N_POS],
        work[at + 3 * N_POS : at + 4 * N_POS],
    )


@njit(cache=True)
def play_kernel(ring, stake_index, model, words, cursor, log, log_n, counters, work):
    """One paid spin. `ring` (5 x 2: symbol, multiplier) is updated in place to the state after the spin;
    counters: see COUNTERS_SIZE (cluster win in hundredths, wheel segment or -1, ...).
    Returns a STATUS_* code; on anything but OK the caller retries with more words or a larger log."""
    adj, touch, ring_of, ring_start, board_w, refill_w, replace_w, circle_sym, circle_mult, circle_w, pay, wheel_w = (
        model
    )
    scratch, board, _, _, _ = split_work(work)
    counters[0] = 0
    counters[1] = -1
    counters[2] = 0
    counters[3] = 0
    counters[4] = 1
    shift_ring(ring, circle_sym, circle_mult, circle_w, words, cursor, log, log_n, scratch)
    draw_board(board, ring_of, board_w, words, cursor)
    log_board(log, log_n, LOG_BOARD, board, scratch)
    win = run_cascades(board, ring, adj, touch, pay, ring_start, refill_w, words, cursor, log, log_n, work, counters)
    if cursor[1] == 0:
        segment = astro_flash(board, ring, ring_of, replace_w, wheel_w[stake_index], words, cursor, log, log_n, scratch)
        counters[1] = segment
        if segment >= 0:
            win += run_cascades(
                board, ring, adj, touch, pay, ring_start, refill_w, words, cursor, log, log_n, work, counters
            )
    counters[0] = win
    if cursor[1] != 0:
        return STATUS_WORDS_EXHAUSTED
    if log_n[1] != 0:
        return STATUS_LOG_FULL
    return STATUS_OK
