"""Every advertised award of both games is reachable: its committed witness (RNG words fed to the engine in place of
a seed's stream) replays through the service's own engine to an outcome holding that award."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games import registry
from games.rng import SpinRng
from games.stjernestoev.model import SEGMENTS, SYMBOLS
from games.witness import TAIL_SEED, WordFeed, awards_in, stjernestoev_cluster_words

DOCS = Path(__file__).resolve().parents[3] / "docs" / "math"


def witnesses(game: str) -> dict:
    return json.loads((DOCS / game / "witnesses.json").read_text())


def advertised(game: str) -> set[str]:
    engine = registry.engine(game)
    if game == "rising-joker":
        model = engine.model
        lines = {f"{c} x {s}" for s in model.line_pays for c in (3, 4, 5)}
        scatter = {f"{c} x star (scatter)" for c in (3, 4, 5)}
        return lines | scatter | {f"Diamond Mystery {t.tier}" for t in model.mystery.tiers}
    return {f"{k} {s}" for s in SYMBOLS for k in range(5, 22)} | {f"wheel {segment}" for segment in SEGMENTS}


@pytest.mark.parametrize("game", ["rising-joker", "stjernestoev"])
def test_every_advertised_award_has_a_witness_that_replays_to_it(game):
    document = witnesses(game)
    engine = registry.engine(game)
    assert document["model_sha256"] == engine.model_sha256
    assert {row["award"] for row in document["witnesses"]} == advertised(game)
    for row in document["witnesses"]:
        result = engine.play(row["state"], row["stake_minor"], WordFeed(row["words"]))
        assert row["award"] in awards_in(game, result.outcome), row["award"]
        assert result.win_minor == row["win_minor"]


def test_the_seeds_worked_example_replays_15_blue_at_500_through_wild_3x_and_blue_4x_to_180000():
    """GAMES.md: 15 blue at 500 øre = 15,000 -> WILD 3x = 45,000 -> blue 4x = 180,000. The ring before the spin holds
    WILD 3x in B1 and blue 4x in B2; the shift moves them to B2 and B3, which the cluster reaches (O0, O1, O2)."""
    engine = registry.engine("stjernestoev")
    state = {
        "bonus_ring": [None, {"symbol": "wild", "multiplier": 3}, {"symbol": "blue", "multiplier": 4}, None, None],
        "ring_stake_minor": 500,
    }
    result = engine.play(state, 500, WordFeed(stjernestoev_cluster_words(engine.model, "blue", 15)))
    first = result.outcome["cascades"][0]["clusters"][0]
    assert (first["symbol"], first["size"], first["multiplier"]) == ("blue", 15, 12)
    assert first["win_micro"] == 180_000_000_000
    assert result.win_minor >= 180_000


def test_a_word_feed_continues_with_the_fixed_tail_after_its_prefix():
    feed, tail = WordFeed([7, 8]), SpinRng(TAIL_SEED)
    assert [feed.next_u64() for _ in range(4)] == [7, 8, tail.next_u64(), tail.next_u64()]
    assert feed.draws == 4
