"""Game recall drawn for people, from games recorded on a real platform run: the Rising Joker window as a grid with
the winning line marked, the Stjernestøv rings labelled, amounts in major units; the HTML page opens in Chromium."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reelstream.recall_view import game_blocks, page, terminal_lines

GAMES = json.loads((Path(__file__).parent / "recall_games.json").read_text())
RISING_JOKER_WIN, RISING_JOKER_LOSS, STJERNESTOEV = GAMES


def test_a_rising_joker_win_is_drawn_as_a_grid_with_the_line_marked():
    lines = terminal_lines(RISING_JOKER_WIN)
    text = "\n".join(lines)
    assert "reel 5" in text and "[" in text and " pays " in text
    grids = [b for b in game_blocks(RISING_JOKER_WIN) if b.kind == "rj-grid"]
    assert [b.title for b in grids] == ["spin", "joker expands"]
    assert grids[0].payload[1] == []  # the lines are marked on the board they were paid on
    assert "{" not in text and "_minor" not in text and "None" not in text
    assert any(line.strip().startswith("- settled: stake ") and " EUR" in line for line in lines)


def test_a_losing_window_marks_nothing():
    grid = next(b for b in game_blocks(RISING_JOKER_LOSS) if b.kind == "rj-grid")
    assert grid.payload[1] == []


def test_stjernestoev_rings_are_labelled_with_the_paying_cluster_marked():
    text = "\n".join(terminal_lines(STJERNESTOEV))
    for label in ("bonus", "outer", "middle", "inner", "O10", "M6", "I2", "sun"):
        assert label in text
    cluster = next(s for s in STJERNESTOEV["steps"] if s["step"].startswith("cascade"))["clusters"][0]
    board = dict(
        zip(
            [f"{p}{k}" for p, n in (("I", 3), ("M", 7), ("O", 11)) for k in range(n)], STJERNESTOEV["steps"][1]["board"]
        )
    )
    for position in cluster["positions"]:
        assert f"{position} [{board[position]}]" in text
    assert " DKK" in text and "{" not in text


def test_the_recall_page_opens_in_chromium(browser, tmp_path):
    path = tmp_path / "recall.html"
    path.write_text(page("demo-player", GAMES))
    browser.get(path.as_uri())
    assert browser.find_element("tag name", "h1").text == "Game recall: demo-player, last 3 games"
    assert len(browser.find_elements("css selector", "table.grid td")) == 15 * 3  # two boards and the expanded one
    assert len(browser.find_elements("css selector", "table.grid td.win")) >= 3
    assert len(browser.find_elements("css selector", "svg.rings")) == 1
    if shot := os.environ.get("REELSTREAM_RECALL_SCREENSHOT"):
        browser.set_window_size(1100, 1900)
        browser.save_screenshot(shot)
