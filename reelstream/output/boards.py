"""Game boards as a person recognises them: the Rising Joker window as a 5×3 grid with the winning lines' cells
marked (pure; the recall command prints it)."""
from __future__ import annotations

from typing import Any


def winning_cells(line_wins: list[dict[str, Any]]) -> set[tuple[int, int]]:
    """(row, reel) of every symbol that pays: a line pays its first `count` reels, at `rows[reel]` on each."""
    return {(win["rows"][reel], reel) for win in line_wins for reel in range(win["count"])}


def rising_joker_grid(window: list[list[str]], line_wins: list[dict[str, Any]]) -> list[str]:
    """Rows of the window (3 rows × 5 reels); a paying symbol is shown as [symbol], the others as  symbol ."""
    marked = winning_cells(line_wins)
    width = max(len(symbol) for row in window for symbol in row) + 2
    lines = ["   " + "".join(f"reel {reel + 1}".center(width + 1) for reel in range(len(window[0])))]
    for row_index, row in enumerate(window):
        cells = [(f"[{symbol}]" if (row_index, reel) in marked else f" {symbol} ").center(width)
                 for reel, symbol in enumerate(row)]
        lines.append(f"{row_index + 1}  " + " ".join(cells))
    for win in line_wins:
        lines.append(f"   line {win['line']}: {win['count']} × {win['symbol']}")
    return lines
