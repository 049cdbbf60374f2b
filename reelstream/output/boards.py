"""Game boards as a person recognises them: the Rising Joker window as a 5×3 grid with the winning lines' cells
marked (pure; the recall command prints it)."""

from __future__ import annotations

from typing import Any

from shared.display.amounts import exact_major
from shared.display.cells import Money


def winning_cells(line_wins: list[dict[str, Any]]) -> set[tuple[int, int]]:
    """(row, reel) of every symbol that pays: a line pays its first `count` reels, at `rows[reel]` on each."""
    return {(win["rows"][reel], reel) for win in line_wins for reel in range(win["count"])}


def rising_joker_grid(window: list[list[str]], line_wins: list[dict[str, Any]], currency: str = "EUR") -> list[str]:
    """Rows of the window (3 rows × 5 reels); a paying symbol is shown as [symbol], the others as  symbol ."""
    marked = winning_cells(line_wins)
    width = max(len(symbol) for row in window for symbol in row) + 2
    lines = ["   " + "".join(f"reel {reel + 1}".center(width + 1) for reel in range(len(window[0])))]
    for row_index, row in enumerate(window):
        cells = [
            (f"[{symbol}]" if (row_index, reel) in marked else f" {symbol} ").center(width)
            for reel, symbol in enumerate(row)
        ]
        lines.append(f"{row_index + 1}  " + " ".join(cells))
    for win in line_wins:
        paid = exact_major(Money.micro(win["amount_micro"], currency)) if "amount_micro" in win else ""
        lines.append(f"   line {win['line']}: {win['count']} × {win['symbol']}" + (f" pays {paid}" if paid else ""))
    return lines


STJERNESTOEV_RINGS = (("outer", "O", 11), ("middle", "M", 7), ("inner", "I", 3))  # outside in, as a person reads


def circle_text(circle: dict[str, Any] | None) -> str:
    if circle is None:
        return "-"
    return circle["symbol"] + (f" {circle['multiplier']}×" if circle.get("multiplier") else "")


def stjernestoev_positions(board: list[str]) -> dict[str, str]:
    """Position name (I0..I2, M0..M6, O0..O10, the engine's naming: inner ring first) -> symbol."""
    names = [f"{prefix}{k}" for prefix, size in (("I", 3), ("M", 7), ("O", 11)) for k in range(size)]
    return dict(zip(names, board))


def stjernestoev_rings(
    board: list[str], ring: list[dict[str, Any] | None], paying: set[str] = frozenset(), width: int = 78
) -> list[str]:
    """The board as labelled rings, outermost first: the 5 bonus circles, then the outer, middle and inner ring
    around the sun; paying positions are shown as [symbol]."""
    import textwrap

    symbols = stjernestoev_positions(board)
    lines = ["bonus   " + "  ".join(f"B{k} {circle_text(c)}" for k, c in enumerate(ring))]
    for label, prefix, size in STJERNESTOEV_RINGS:
        cells = [
            f"{prefix}{k} " + (f"[{symbols[f'{prefix}{k}']}]" if f"{prefix}{k}" in paying else symbols[f"{prefix}{k}"])
            for k in range(size)
        ]
        lines += textwrap.wrap(f"{label:<7} " + "  ".join(cells), width, subsequent_indent=" " * 8)
    lines.append("        (sun at the centre)")
    return lines
