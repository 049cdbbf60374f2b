"""Full-cycle enumeration and batch evaluation of Rising Joker stops with numba (math tooling, not the service path);
both kernels read per-stop tables with every joker reel already expanded."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from shared.invariant import invariant
from games.rising_joker.model import RisingJokerModel


@dataclass(frozen=True)
class Tables:
    eff: np.ndarray  # [reel, stop, row] symbol code, joker reels expanded
    stars: np.ndarray  # [reel, stop] stars visible before expansion
    lengths: np.ndarray  # [reel]
    lines: np.ndarray  # [line, reel] row
    pays: np.ndarray  # [symbol, count 0..5] hundredths of the total stake
    scatter_pays: np.ndarray  # [stars 0..5]
    scatter_code: int
    wild_code: int

    @property
    def max_factor(self) -> int:
        return int(len(self.lines) * self.pays.max() + self.scatter_pays.max())

    @property
    def awards(self) -> int:
        return int(self.pays.shape[0] * 3 + 3)

    @property
    def cycle(self) -> int:
        return int(np.prod(self.lengths.astype(object)))


def tables(model: RisingJokerModel) -> Tables:
    """Numeric tables of a model for the kernels."""
    code = {name: index for index, name in enumerate(model.symbols)}
    longest = max(len(strip) for strip in model.reels)
    eff = np.full((5, longest, model.rows), -1, dtype=np.int64)
    stars = np.zeros((5, longest), dtype=np.int64)
    for reel, strip in enumerate(model.reels):
        for stop in range(len(strip)):
            cells = [strip[(stop + row) % len(strip)] for row in range(model.rows)]
            stars[reel, stop] = cells.count(model.scatter)
            wild_reel = model.wild in cells
            eff[reel, stop] = [code[model.wild] if wild_reel else code[cell] for cell in cells]
    pays = np.zeros((len(model.symbols), 6), dtype=np.int64)
    for name, line_pays in model.line_pays.items():
        pays[code[name], 3:] = (line_pays.three, line_pays.four, line_pays.five)
    scatter_pays = np.zeros(6, dtype=np.int64)
    scatter_pays[3:] = (model.scatter_pays.three, model.scatter_pays.four, model.scatter_pays.five)
    return Tables(
        eff,
        stars,
        np.array([len(s) for s in model.reels], dtype=np.int64),
        np.array(model.lines, dtype=np.int64),
        pays,
        scatter_pays,
        code[model.scatter],
        code[model.wild],
    )


@njit(cache=True)
def _matches(cell, symbol, wild):
    return cell == symbol or cell == wild


@njit(cache=True)
def _spin(eff, stars, lines, pays, scatter_pays, scatter_code, wild, stops, line_symbol, line_count):
    """One spin: fills per-line symbol and count (0 when the line does not win); returns (factor, stars)."""
    total = 0
    for line in range(lines.shape[0]):
        symbol = eff[0, stops[0], lines[line, 0]]
        count = 0
        if symbol != scatter_code:
            count = 1
            for reel in range(1, 5):
                if not _matches(eff[reel, stops[reel], lines[line, reel]], symbol, wild):
                    break
                count += 1
        pay = pays[symbol, count] if count >= 3 else 0
        line_symbol[line] = symbol if pay > 0 else -1
        line_count[line] = count if pay > 0 else 0
        total += pay
    star_count = 0
    for reel in range(5):
        star_count += stars[reel, stops[reel]]
    return total + scatter_pays[star_count], star_count


@njit(parallel=True, cache=True)
def _batch(eff, stars, lines, pays, scatter_pays, scatter_code, wild, stops):
    n = stops.shape[0]
    factor = np.zeros(n, dtype=np.int64)
    star_count = np.zeros(n, dtype=np.int64)
    line_symbol = np.zeros((n, lines.shape[0]), dtype=np.int64)
    line_count = np.zeros((n, lines.shape[0]), dtype=np.int64)
    for i in prange(n):
        factor[i], star_count[i] = _spin(
            eff, stars, lines, pays, scatter_pays, scatter_code, wild, stops[i], line_symbol[i], line_count[i]
        )
    return factor, star_count, line_symbol, line_count


def evaluate_batch(t: Tables, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(factor hundredths incl. scatter, stars, line symbol codes (-1 = no win), line counts) per row of stops."""
    invariant(stops.ndim == 2 and stops.shape[1] == 5, "stops are rows of 5")
    invariant(bool(np.all(stops < t.lengths)) and bool(np.all(stops >= 0)), "stops lie on their strips")
    return _batch(
        t.eff,
        t.stars,
        t.lines,
        t.pays,
        t.scatter_pays,
        t.scatter_code,
        t.wild_code,
        np.ascontiguousarray(stops, dtype=np.int64),
    )


@njit(cache=True)
def _prefix(eff, lines, pays, scatter_code, wild, i0, i1, i2, i3, open_symbol, open_row):
    """Lines settled by reels 1-4 (sum, award mask, per-symbol pays) and the lines still open at reel 5."""
    settled = 0
    mask = 0
    n_open = 0
    for line in range(lines.shape[0]):
        symbol = eff[0, i0, lines[line, 0]]
        if symbol == scatter_code:
            continue
        if not _matches(eff[1, i1, lines[line, 1]], symbol, wild):
            continue
        if not _matches(eff[2, i2, lines[line, 2]], symbol, wild):
            continue
        if _matches(eff[3, i3, lines[line, 3]], symbol, wild):
            open_symbol[n_open] = symbol
            open_row[n_open] = lines[line, 4]
            n_open += 1
        else:
            settled += pays[symbol, 3]
            mask |= np.int64(1) << (symbol * 3)
    return settled, mask, n_open


@njit(cache=True)
def _add_settled_by_symbol(by_symbol, eff, lines, pays, scatter_code, wild, i0, i1, i2, i3, weight):
    for line in range(lines.shape[0]):
        symbol = eff[0, i0, lines[line, 0]]
        if symbol == scatter_code:
            continue
        if (
            _matches(eff[1, i1, lines[line, 1]], symbol, wild)
            and _matches(eff[2, i2, lines[line, 2]], symbol, wild)
            and not _matches(eff[3, i3, lines[line, 3]], symbol, wild)
        ):
            by_symbol[symbol] += pays[symbol, 3] * weight


@njit(parallel=True, cache=True)
def _enumerate(
    eff, stars, lengths, lines, pays, scatter_pays, scatter_code, wild, n_chunks, max_factor, awards, per_combo
):
    n_symbols = pays.shape[0]
    hist = np.zeros((n_chunks, max_factor + 1), dtype=np.int64)
    by_symbol = np.zeros((n_chunks, n_symbols), dtype=np.int64)
    scatter_sum = np.zeros(n_chunks, dtype=np.int64)
    award_spins = np.zeros((n_chunks, awards), dtype=np.int64)
    l0, l1, l2, l3, l4 = lengths[0], lengths[1], lengths[2], lengths[3], lengths[4]
    for chunk in prange(n_chunks):
        open_symbol = np.zeros(lines.shape[0], dtype=np.int64)
        open_row = np.zeros(lines.shape[0], dtype=np.int64)
        for i0 in range(chunk, l0, n_chunks):
            for i1 in range(l1):
                for i2 in range(l2):
                    for i3 in range(l3):
                        settled, mask3, n_open = _prefix(
                            eff, lines, pays, scatter_code, wild, i0, i1, i2, i3, open_symbol, open_row
                        )
                        if settled > 0:
                            _add_settled_by_symbol(
                                by_symbol[chunk], eff, lines, pays, scatter_code, wild, i0, i1, i2, i3, l4
                            )
                            for bit in range(awards):
                                if (mask3 >> bit) & 1:
                                    award_spins[chunk, bit] += l4
                        stars4 = stars[0, i0] + stars[1, i1] + stars[2, i2] + stars[3, i3]
                        for i4 in range(l4):
                            factor = settled
                            mask = np.int64(0)
                            for k in range(n_open):
                                symbol = open_symbol[k]
                                if _matches(eff[4, i4, open_row[k]], symbol, wild):
                                    pay = pays[symbol, 5]
                                    mask |= np.int64(1) << (symbol * 3 + 2)
                                else:
                                    pay = pays[symbol, 4]
                                    mask |= np.int64(1) << (symbol * 3 + 1)
                                factor += pay
                                by_symbol[chunk, symbol] += pay
                            star_count = stars4 + stars[4, i4]
                            if star_count >= 3:
                                factor += scatter_pays[star_count]
                                scatter_sum[chunk] += scatter_pays[star_count]
                                mask |= np.int64(1) << (n_symbols * 3 + star_count - 3)
                            hist[chunk, factor] += 1
                            if mask != 0:
                                for bit in range(awards):
                                    if (mask >> bit) & 1:
                                        award_spins[chunk, bit] += 1
                            if per_combo.shape[0] > 0:
                                per_combo[(((i0 * l1 + i1) * l2 + i2) * l3 + i3) * l4 + i4] = factor
    return hist.sum(axis=0), by_symbol.sum(axis=0), scatter_sum.sum(), award_spins.sum(axis=0)


@dataclass(frozen=True)
class Cycle:
    """Counts over every stop combination: the exact base-game distribution of the factor in hundredths."""

    cycle: int
    histogram: np.ndarray  # [factor hundredths] -> combinations
    lines_by_symbol: np.ndarray  # [symbol code] -> summed line factor hundredths
    scatter_sum: int  # summed scatter factor hundredths
    award_spins: np.ndarray  # [award] -> combinations holding that award at least once


def enumerate_cycle(t: Tables, keep_per_combo: bool = False, n_chunks: int | None = None) -> tuple[Cycle, np.ndarray]:
    """Every stop combination once; with keep_per_combo, also each combination's factor (row-major stop order)."""
    chunks = n_chunks or 4 * numba.get_num_threads()
    per_combo = np.zeros(t.cycle if keep_per_combo else 0, dtype=np.int64)
    hist, by_symbol, scatter_sum, award_spins = _enumerate(
        t.eff,
        t.stars,
        t.lengths,
        t.lines,
        t.pays,
        t.scatter_pays,
        t.scatter_code,
        t.wild_code,
        chunks,
        t.max_factor,
        t.awards,
        per_combo,
    )
    invariant(int(hist.sum()) == t.cycle, "every combination counted once")
    base_sum = int((hist * np.arange(hist.shape[0], dtype=np.int64)).sum())
    invariant(base_sum == int(by_symbol.sum()) + int(scatter_sum), "total = lines + scatter")
    return Cycle(t.cycle, hist, by_symbol, int(scatter_sum), award_spins), per_combo
