"""Pure evaluation of one Rising Joker window: line wins with joker expansion, and the scatter count.

Stake-free: every win is a factor in hundredths of the total stake. The service prices it in `engine.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.invariant import invariant
from games.rising_joker.model import RisingJokerModel

Columns = tuple[tuple[str, ...], ...]  # columns[reel][row], reel and row 0-based


@dataclass(frozen=True)
class LineWin:
    line: int  # 1-based line number
    symbol: str
    count: int
    factor_hundredths: int


@dataclass(frozen=True)
class SpinEvaluation:
    stops: tuple[int, ...]
    before: Columns
    after: Columns
    expanded_reels: tuple[int, ...]  # 1-based reel numbers
    line_wins: tuple[LineWin, ...]
    scatter_count: int
    scatter_hundredths: int

    @property
    def lines_hundredths(self) -> int:
        return sum(win.factor_hundredths for win in self.line_wins)

    @property
    def base_hundredths(self) -> int:
        """The exact line + scatter win in hundredths of the total stake; 0 means a losing spin."""
        return self.lines_hundredths + self.scatter_hundredths


def window(model: RisingJokerModel, stops: tuple[int, ...]) -> Columns:
    """The visible symbols: the stop is the top row, the strip wraps around."""
    invariant(len(stops) == len(model.reels), "one stop per reel")
    columns = []
    for strip, stop in zip(model.reels, stops):
        invariant(0 <= stop < len(strip), "a stop lies on its strip")
        columns.append(tuple(strip[(stop + row) % len(strip)] for row in range(model.rows)))
    return tuple(columns)


def line_win(model: RisingJokerModel, columns: Columns, line_number: int) -> LineWin | None:
    """The one (highest) win of a line: its reel-1 symbol, extended left to right by equal symbols or jokers."""
    rows = model.lines[line_number - 1]
    symbol = columns[0][rows[0]]
    if symbol == model.scatter:
        return None  # the star pays only as a scatter, and the joker never stands in for it
    invariant(symbol != model.wild, "reel 1 never holds the joker")
    count = 1
    for reel in range(1, len(columns)):
        cell = columns[reel][rows[reel]]
        if cell != symbol and cell != model.wild:
            break
        count += 1
    factor = model.line_pays[symbol].for_count(count)
    return LineWin(line_number, symbol, count, factor) if factor else None


def line_wins(model: RisingJokerModel, columns: Columns) -> tuple[LineWin, ...]:
    wins = (line_win(model, columns, number) for number in range(1, len(model.lines) + 1))
    return tuple(win for win in wins if win is not None)


def scatter_count(model: RisingJokerModel, columns: Columns) -> int:
    return sum(cell == model.scatter for column in columns for cell in column)


def _expand(model: RisingJokerModel, columns: Columns, reels: set[int]) -> Columns:
    wild_column = (model.wild,) * model.rows
    return tuple(wild_column if reel in reels else column for reel, column in enumerate(columns))


def _total(wins: tuple[LineWin, ...]) -> int:
    return sum(win.factor_hundredths for win in wins)


def expanding_reels(model: RisingJokerModel, columns: Columns) -> set[int]:
    """0-based reels whose joker expands: those whose expansion raises the line win, the other jokers expanded.

    A joker cell only ever adds matches, so expanding every joker reel gives the highest line win; a reel whose
    expansion adds nothing to that stays as it landed (the joker expands only when that yields a win).
    """
    joker_reels = {reel for reel, column in enumerate(columns) if model.wild in column}
    best = _total(line_wins(model, _expand(model, columns, joker_reels)))
    return {
        reel for reel in joker_reels if _total(line_wins(model, _expand(model, columns, joker_reels - {reel}))) < best
    }


def evaluate_stops(model: RisingJokerModel, stops: tuple[int, ...]) -> SpinEvaluation:
    """The full stake-free outcome of one set of reel stops."""
    before = window(model, stops)
    stars = scatter_count(model, before)  # counted before any expansion
    expanded = expanding_reels(model, before)
    after = _expand(model, before, expanded)
    wins = line_wins(model, after)
    invariant(_total(wins) >= _total(line_wins(model, before)), "expansion never lowers a win")
    scatter_hundredths = model.scatter_pays.for_count(stars) if stars >= 3 else 0
    return SpinEvaluation(
        stops=tuple(stops),
        before=before,
        after=after,
        expanded_reels=tuple(sorted(reel + 1 for reel in expanded)),
        line_wins=wins,
        scatter_count=stars,
        scatter_hundredths=scatter_hundredths,
    )
