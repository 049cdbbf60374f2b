"""Every rule of the seed pinned with hand-built windows (rows top to bottom, reels left to right)."""

from __future__ import annotations

import pytest

from games.rising_joker.evaluate import LineWin


def test_joker_substitutes_on_its_line_and_stays_unexpanded_when_expansion_adds_nothing(spin_of):
    spin = spin_of(
        [
            ["grape", "bell", "orange", "gold_seven", "strawberry"],
            ["cherry", "joker", "cherry", "bell", "grape"],
            ["melon", "strawberry", "lemon", "red_seven", "bell"],
        ]
    )
    assert spin.line_wins == (LineWin(1, "cherry", 3, 5),)
    assert spin.expanded_reels == ()
    assert spin.after == spin.before


def test_joker_expands_over_its_reel_when_that_yields_a_win(spin_of):
    spin = spin_of(
        [
            ["grape", "joker", "orange", "gold_seven", "strawberry"],
            ["cherry", "bell", "cherry", "bell", "grape"],
            ["melon", "strawberry", "lemon", "red_seven", "bell"],
        ]
    )
    assert spin.line_wins == (LineWin(1, "cherry", 3, 5),)
    assert spin.expanded_reels == (2,)
    assert spin.after[1] == ("joker", "joker", "joker")
    assert spin.before[1] == ("joker", "bell", "strawberry")


def test_joker_does_not_expand_when_no_line_would_win(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "gold_seven", "strawberry"],
            ["star", "joker", "star", "bell", "grape"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert spin.line_wins == ()
    assert spin.expanded_reels == ()
    assert spin.base_hundredths == 0


def test_joker_never_stands_in_for_the_star(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "gold_seven", "strawberry"],
            ["star", "joker", "star", "bell", "grape"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert spin.scatter_count == 2
    assert spin.scatter_hundredths == 0


def test_star_breaks_a_line_it_sits_on(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "gold_seven", "strawberry"],
            ["bell", "star", "bell", "bell", "bell"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert spin.line_wins == ()


def test_star_on_reel_one_starts_no_line_even_before_jokers(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "gold_seven", "strawberry"],
            ["star", "joker", "joker", "joker", "joker"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert all(win.line != 1 for win in spin.line_wins)
    assert spin.scatter_count == 1


def test_scatter_is_counted_before_expansion_hides_a_star(spin_of):
    spin = spin_of(
        [
            ["star", "joker", "orange", "gold_seven", "strawberry"],
            ["cherry", "bell", "cherry", "bell", "grape"],
            ["melon", "star", "star", "red_seven", "bell"],
        ]
    )
    assert spin.expanded_reels == (2,)
    assert "star" not in spin.after[1]
    assert spin.scatter_count == 3
    assert spin.scatter_hundredths == 500
    assert spin.line_wins == (LineWin(1, "cherry", 3, 5),)
    assert spin.base_hundredths == 505


def test_scatter_pays_anywhere_five_stars(spin_of):
    spin = spin_of(
        [
            ["star", "orange", "cherry", "star", "strawberry"],
            ["grape", "star", "lemon", "bell", "star"],
            ["melon", "lemon", "star", "red_seven", "cherry"],
        ]
    )
    assert (spin.scatter_count, spin.scatter_hundredths) == (5, 25000)


def test_only_the_highest_win_per_line_is_paid(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "gold_seven", "strawberry"],
            ["bell", "bell", "bell", "bell", "grape"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert spin.line_wins == (LineWin(1, "bell", 4, 2000),)


def test_wins_on_different_lines_add_up(spin_of):
    spin = spin_of(
        [
            ["gold_seven", "gold_seven", "gold_seven", "gold_seven", "gold_seven"],
            ["bell", "bell", "bell", "orange", "grape"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert LineWin(2, "gold_seven", 5, 50000) in spin.line_wins
    assert LineWin(1, "bell", 3, 400) in spin.line_wins
    assert spin.lines_hundredths == sum(win.factor_hundredths for win in spin.line_wins)


def test_jokers_alone_after_reel_one_pay_the_reel_one_symbol(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "melon", "strawberry"],
            ["red_seven", "joker", "joker", "joker", "joker"],
            ["melon", "lemon", "strawberry", "bell", "cherry"],
        ]
    )
    assert LineWin(1, "red_seven", 5, 20000) in spin.line_wins


def test_a_line_needs_three_adjacent_from_reel_one(spin_of):
    spin = spin_of(
        [
            ["grape", "orange", "cherry", "melon", "strawberry"],
            ["lemon", "bell", "bell", "bell", "bell"],
            ["melon", "lemon", "strawberry", "red_seven", "cherry"],
        ]
    )
    assert spin.line_wins == ()


def test_a_joker_on_reel_one_is_refused_at_load(showing):
    with pytest.raises(ValueError, match="reel 1 never holds the joker"):
        showing(
            [
                ["joker", "orange", "cherry", "melon", "strawberry"],
                ["lemon", "bell", "bell", "bell", "bell"],
                ["melon", "lemon", "strawberry", "red_seven", "cherry"],
            ]
        )
