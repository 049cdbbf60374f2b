"""The Rising Joker window evaluation compiled with numba, for the spin service's per-spin path (~5x cheaper than
`evaluate.evaluate_stops`, which stays the reference and the fallback when numba is not installed).

Same rules as evaluate.py: line wins from reel 1 left to right with the joker standing in, every joker reel expanded
that raises the line win (the others expanded), stars counted before expansion. tests/unit/games/rising_joker checks
that both give the same SpinEvaluation on many stops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shared.invariant import invariant
from games.rising_joker.evaluate import LineWin, SpinEvaluation, evaluate_stops
from games.rising_joker.model import RisingJokerModel

try:
    import numpy as np
    from numba import njit
except ImportError:  # the pure-Python evaluation plays every spin
    njit = None


def _line_total(cells, lines, pays, scatter_code, wild, line_symbol, line_count):
    """The line win of a window of symbol codes [reel, row]; fills each line's symbol and count (-1, 0: no win)."""
    total = 0
    for line in range(lines.shape[0]):
        line_symbol[line] = -1
        line_count[line] = 0
        symbol = cells[0, lines[line, 0]]
        if symbol == scatter_code:
            continue
        count = 1
        for reel in range(1, cells.shape[0]):
            cell = cells[reel, lines[line, reel]]
            if cell != symbol and cell != wild:
                break
            count += 1
        pay = pays[symbol, count]
        if pay > 0:
            line_symbol[line] = symbol
            line_count[line] = count
            total += pay
    return total


def _evaluate(raw, lines, pays, scatter_code, wild, stops, wins):
    """(line win after expansion, line win before, stars before, bit mask of the expanded 0-based reels); fills
    wins[0] with each line's symbol code (-1: no win) and wins[1] with its count."""
    line_symbol, line_count = wins[0], wins[1]
    reels, rows = raw.shape[0], raw.shape[2]
    before = np.empty((reels, rows), np.int64)
    joker = np.zeros(reels, np.bool_)
    stars = 0
    for reel in range(reels):
        for row in range(rows):
            cell = raw[reel, stops[reel], row]
            before[reel, row] = cell
            if cell == wild:
                joker[reel] = True
            if cell == scatter_code:
                stars += 1
    scratch_symbol = np.empty_like(line_symbol)
    scratch_count = np.empty_like(line_count)
    cells = before.copy()
    for reel in range(reels):
        if joker[reel]:
            cells[reel, :] = wild
    best = _line_total(cells, lines, pays, scatter_code, wild, scratch_symbol, scratch_count)
    mask = 0
    for reel in range(reels):
        if joker[reel]:
            cells[reel, :] = before[reel, :]
            if _line_total(cells, lines, pays, scatter_code, wild, scratch_symbol, scratch_count) < best:
                mask |= 1 << reel
            cells[reel, :] = wild
    after = before.copy()
    for reel in range(reels):
        if (mask >> reel) & 1:
            after[reel, :] = wild
    total = _line_total(after, lines, pays, scatter_code, wild, line_symbol, line_count)
    unexpanded = _line_total(before, lines, pays, scatter_code, wild, scratch_symbol, scratch_count)
    return total, unexpanded, stars, mask


if njit is not None:
    _line_total = njit(cache=True)(_line_total)
    _evaluate = njit(cache=True)(_evaluate)


@dataclass(frozen=True)
class _Tables:
    raw: np.ndarray  # [reel, stop, row] symbol code of the visible cell, strips wrapped
    lines: np.ndarray  # [line, reel] row
    pays: np.ndarray  # [symbol, count 0..5] hundredths of the total stake (0 below three)
    columns: tuple[tuple[tuple[str, ...], ...], ...]  # [reel][stop] the visible column
    lengths: tuple[int, ...]
    wild: int
    scatter: int


def _tables(model: RisingJokerModel) -> _Tables:
    code = {name: index for index, name in enumerate(model.symbols)}
    longest = max(len(strip) for strip in model.reels)
    raw = np.full((len(model.reels), longest, model.rows), -1, dtype=np.int64)
    columns = []
    for reel, strip in enumerate(model.reels):
        visible = tuple(
            tuple(strip[(stop + row) % len(strip)] for row in range(model.rows)) for stop in range(len(strip))
        )
        columns.append(visible)
        for stop, cells in enumerate(visible):
            raw[reel, stop] = [code[cell] for cell in cells]
    pays = np.zeros((len(model.symbols), len(model.reels) + 1), dtype=np.int64)
    for name, line_pays in model.line_pays.items():
        pays[code[name], 3:6] = (line_pays.three, line_pays.four, line_pays.five)
    lengths = tuple(len(strip) for strip in model.reels)
    lines = np.array(model.lines, dtype=np.int64)
    return _Tables(raw, lines, pays, tuple(columns), lengths, code[model.wild], code[model.scatter])


_TABLES: dict[int, tuple[RisingJokerModel, _Tables]] = {}  # id(model) -> (the model, kept alive; its tables)


def tables_of(model: RisingJokerModel) -> _Tables:
    kept = _TABLES.get(id(model))
    if kept is None or kept[0] is not model:
        kept = _TABLES[id(model)] = (model, _tables(model))
    return kept[1]


def evaluate_compiled(model: RisingJokerModel, stops: tuple[int, ...]) -> SpinEvaluation:
    """`evaluate_stops(model, stops)` through the compiled kernel (requires numba)."""
    t = tables_of(model)
    invariant(len(stops) == len(t.lengths), "one stop per reel")
    invariant(all(0 <= stop < length for stop, length in zip(stops, t.lengths)), "a stop lies on its strip")
    wins = np.empty((2, len(model.lines)), np.int64)
    total, unexpanded, stars, mask = _evaluate(
        t.raw, t.lines, t.pays, t.scatter, t.wild, np.array(stops, np.int64), wins
    )
    invariant(total >= unexpanded, "expansion never lowers a win")
    before = tuple(t.columns[reel][stop] for reel, stop in enumerate(stops))
    wild_column = (model.wild,) * model.rows
    expanded = tuple(reel for reel in range(len(stops)) if (mask >> reel) & 1)
    after = tuple(wild_column if (mask >> reel) & 1 else column for reel, column in enumerate(before))
    wins = tuple(
        LineWin(line + 1, model.symbols[symbol], int(count), int(t.pays[symbol, count]))
        for line, (symbol, count) in enumerate(zip(*wins.tolist()))
        if symbol >= 0
    )
    return SpinEvaluation(
        stops=tuple(stops),
        before=before,
        after=after,
        expanded_reels=tuple(reel + 1 for reel in expanded),
        line_wins=wins,
        scatter_count=int(stars),
        scatter_hundredths=model.scatter_pays.for_count(int(stars)) if stars >= 3 else 0,
    )


def evaluator() -> Callable[[RisingJokerModel, tuple[int, ...]], SpinEvaluation]:
    """The evaluation the engine plays with: the compiled one when numba is installed, else the pure-Python one."""
    return evaluate_compiled if njit is not None else evaluate_stops
