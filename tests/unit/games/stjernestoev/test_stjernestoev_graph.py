"""The ring graph: 21 positions, connected, degrees as documented in docs/math/stjernestoev/README.md."""

from __future__ import annotations

from games.stjernestoev.model import POSITIONS
from stjernestoev_helpers import MODEL

DOCUMENTED_DEGREES = {
    "I0": 5,
    "I1": 4,
    "I2": 4,
    "M0": 4,
    "M1": 4,
    "M2": 4,
    "M3": 5,
    "M4": 4,
    "M5": 4,
    "M6": 5,
    "O0": 3,
    "O1": 3,
    "O2": 2,
    "O3": 2,
    "O4": 4,
    "O5": 2,
    "O6": 2,
    "O7": 4,
    "O8": 2,
    "O9": 2,
    "O10": 3,
}
DOCUMENTED_TOUCH = {"B0": {"O7", "O8"}, "B1": {"O9"}, "B2": {"O10", "O0", "O1"}, "B3": {"O2"}, "B4": {"O3", "O4"}}


def neighbours() -> dict[str, set[str]]:
    result = {p: set() for p in POSITIONS}
    for a, b in MODEL.edges:
        result[POSITIONS[a]].add(POSITIONS[b])
        result[POSITIONS[b]].add(POSITIONS[a])
    return result


def test_the_board_has_21_positions_in_rings_of_3_7_and_11():
    assert len(POSITIONS) == 21
    assert [p[0] for p in POSITIONS].count("I") == 3
    assert [p[0] for p in POSITIONS].count("M") == 7
    assert [p[0] for p in POSITIONS].count("O") == 11


def test_every_position_is_reachable_from_the_inner_ring_so_a_21_cluster_is_possible():
    graph, seen, frontier = neighbours(), {"I0"}, ["I0"]
    while frontier:
        for other in graph[frontier.pop()] - seen:
            seen.add(other)
            frontier.append(other)
    assert seen == set(POSITIONS)


def test_degrees_are_as_documented():
    assert {p: len(n) for p, n in neighbours().items()} == DOCUMENTED_DEGREES
    assert len(MODEL.edges) == sum(DOCUMENTED_DEGREES.values()) // 2 == 36


def test_some_ring_neighbours_are_joined_and_others_are_not():
    graph = neighbours()
    assert "M1" in graph["M0"] and "M2" not in graph["M1"] and "M5" not in graph["M4"]
    assert "O1" in graph["O0"] and "O3" not in graph["O2"] and "O6" not in graph["O5"] and "O9" not in graph["O8"]


def test_the_inner_ring_is_a_triangle_around_the_sun():
    graph = neighbours()
    assert {"I1", "I2"} <= graph["I0"] and "I2" in graph["I1"]


def test_only_outer_positions_touch_bonus_circles_as_documented():
    touch = {f"B{c}": {POSITIONS[p] for p in ps} for c, ps in enumerate(MODEL.circle_touch)}
    assert touch == DOCUMENTED_TOUCH
    untouched = {p for p in POSITIONS if p.startswith("O")} - set().union(*touch.values())
    assert untouched == {"O5", "O6"}
