"""The Rising Joker window drawn as a 5×3 grid, the paying cells of each winning line marked."""

from __future__ import annotations

from reelstream.output.boards import rising_joker_grid, winning_cells

WINDOW = [
    ["bell", "cherry", "cherry", "lemon", "grape"],
    ["cherry", "bell", "lemon", "grape", "melon"],
    ["lemon", "grape", "bell", "cherry", "orange"],
]


def test_a_line_marks_its_first_count_reels_on_its_rows():
    win = {"line": 4, "rows": [0, 1, 2, 1, 0], "symbol": "bell", "count": 3}
    assert winning_cells([win]) == {(0, 0), (1, 1), (2, 2)}
    grid = rising_joker_grid(WINDOW, [win])
    assert len(grid) == 1 + 3 + 1
    assert "[bell]" in grid[1] and "[bell]" in grid[2] and "[bell]" in grid[3]
    assert "[" not in grid[1].split("[bell]", 1)[1]
    assert grid[-1].strip() == "line 4: 3 × bell"


def test_a_losing_window_marks_nothing():
    assert all("[" not in line for line in rising_joker_grid(WINDOW, []))
