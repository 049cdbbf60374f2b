"""Cluster pays on hand-built boards: inner ring required, < 5 never pays, several clusters, bonus multipliers."""

from __future__ import annotations

from stjernestoev_helpers import board_of, pay_once, ring_of

# Fillers chosen so that no filler position joins a same-symbol neighbour into a paying cluster.
MIXED = [
    "green",
    "orange",
    "purple",
    "silver",
    "red",
    "green",
    "orange",
    "purple",
    "silver",
    "red",
    "green",
    "orange",
    "purple",
    "silver",
    "red",
    "green",
    "orange",
    "purple",
    "silver",
    "red",
    "green",
]
EMPTY_RING = ring_of([None] * 5)
SEED_BLUE_15 = {
    p: "blue" for p in ("I0", "I1", "M0", "M1", "M2", "M3", "M6", "O0", "O1", "O2", "O3", "O4", "O5", "O9", "O10")
}
SEED_REST = ["red", "green", "orange", "red", "purple", "silver"]  # I2, M4, M5, O6, O7, O8


def test_the_seeds_15_blue_at_500_with_wild_3x_then_blue_4x_pays_180000_ore():
    ring = ring_of(
        [
            None,
            {"symbol": "red", "multiplier": 2},
            {"symbol": "wild", "multiplier": 3},
            {"symbol": "green", "multiplier": 3},
            {"symbol": "blue", "multiplier": 4},
        ]
    )
    step = pay_once(board_of(SEED_BLUE_15, SEED_REST), ring)
    (cluster,) = step.clusters
    assert (cluster.symbol, cluster.size, cluster.factor_hundredths) == ("blue", 15, 3000)
    assert cluster.circles == {"B2", "B4"} and cluster.multiplier == 12
    assert step.win_hundredths * 500 // 100 == 180_000
    assert step.ring_after[2, 0] == -1 and step.ring_after[4, 0] == -1  # exploded, not replaced
    assert step.ring_after[1, 0] == 0 and step.ring_after[3, 0] == 2  # red and green do not match blue


def test_a_cluster_without_bonus_circles_pays_the_paytable_factor():
    step = pay_once(board_of(SEED_BLUE_15, SEED_REST), EMPTY_RING)
    assert step.win_hundredths == 3000


def test_12_red_pay_6_5_times_the_stake():
    reds = {p: "red" for p in ("I0", "I1", "M0", "M1", "M2", "M3", "M6", "O0", "O1", "O2", "O3", "O4")}
    step = pay_once(
        board_of(reds, ["green", "orange", "blue", "green", "orange", "blue", "green", "orange", "silver"]), EMPTY_RING
    )
    assert [(c.symbol, c.size) for c in step.clusters] == [("red", 12)]
    assert step.win_hundredths * 300 // 100 == 1950


def test_a_cluster_that_does_not_touch_the_inner_ring_never_pays():
    outer_reds = {p: "red" for p in ("M3", "M4", "O4", "O5", "O6", "O7", "M2", "O3")}
    board = board_of(outer_reds | {"I0": "green", "I1": "blue", "I2": "orange"}, MIXED)
    step = pay_once(board, EMPTY_RING)
    assert step.win_hundredths == 0 and step.removed == set()


def test_four_connected_symbols_never_pay_and_five_do():
    four = {"I0": "red", "M0": "red", "O0": "red", "O1": "red"}
    assert pay_once(board_of(four, MIXED), EMPTY_RING).win_hundredths == 0
    five = four | {"M1": "red"}
    step = pay_once(board_of(five, MIXED), EMPTY_RING)
    assert [(c.symbol, c.size) for c in step.clusters] == [("red", 5)] and step.win_hundredths == 32


def test_two_clusters_pay_in_one_step_and_share_a_wild_circle_that_explodes_once():
    red = {p: "red" for p in ("I0", "M0", "M1", "O0", "O1")}
    blue = {p: "blue" for p in ("I2", "M5", "M6", "O9", "O10")}
    rest = ["green", "orange", "purple", "silver", "green", "orange", "red", "silver", "purple", "green", "orange"]
    ring = ring_of([None, None, {"symbol": "wild", "multiplier": 2}, None, None])
    step = pay_once(board_of(red | blue, rest), ring)
    assert sorted((c.symbol, c.size, c.multiplier) for c in step.clusters) == [("blue", 5, 2), ("red", 5, 2)]
    assert step.win_hundredths == 32 * 2 + 100 * 2
    assert step.removed == set(red) | set(blue)
    assert step.ring_after[2, 0] == -1


def test_wild_matches_every_symbol_but_a_different_symbol_does_not():
    board = board_of(SEED_BLUE_15, SEED_REST)
    for content, expected in (
        ({"symbol": "wild", "multiplier": 5}, 5),
        ({"symbol": "blue", "multiplier": 2}, 2),
        ({"symbol": "bar", "multiplier": 4}, 1),
        ({"symbol": "astro"}, 1),
    ):
        step = pay_once(board, ring_of([None, None, content, None, None]))
        assert step.clusters[0].multiplier == expected


def test_a_circle_not_reached_through_the_graph_does_not_multiply():
    five = {p: "red" for p in ("I1", "I2", "M3", "M4", "O6")}  # O6 touches no circle
    ring = ring_of([{"symbol": "wild", "multiplier": 5}] * 5)
    step = pay_once(board_of(five, ["green", "orange", "purple", "silver"] * 5), ring)
    assert [(c.symbol, c.size, c.multiplier) for c in step.clusters] == [("red", 5, 1)]
