"""Model v3: a triggered Diamond Mystery's outcome states each tier's chance per trigger beside the 12 cards (which
agree with the tier drawn first); everything else, and every v2 spin, is exactly as v2 plays it."""

from __future__ import annotations

import json
from fractions import Fraction

from games.rising_joker import engine_for_model
from games.rising_joker.mystery import first_tier_to_three
from games.rising_joker.model import load_model, model_bytes
from games.rng import SpinRng


def _triggered_outcomes(version: str, wanted: int) -> list[dict]:
    engine, found, index = engine_for_model(version), [], 0
    while len(found) < wanted:
        seed = index.to_bytes(32, "little")
        result = engine.play(engine.initial_state(), 20, SpinRng(seed))
        if result.outcome["mystery"]["triggered"]:
            found.append((seed, result.outcome))
        index += 1
    return found


def test_v3_is_v2_but_for_the_reveal_setting():
    v2, v3 = (json.loads(model_bytes(v)) for v in ("rising-joker-v2", "rising-joker-v3"))
    assert v3["mystery"].pop("reveal") == "cards-with-odds"
    assert {**v3, "version": "rising-joker-v2"} == v2


def test_a_triggered_v3_mystery_shows_every_tiers_chance_per_trigger_and_cards_that_agree_with_its_tier():
    (seed, outcome), *_ = _triggered_outcomes("rising-joker-v3", 1)
    mystery = outcome["mystery"]
    odds = {o["tier"]: Fraction(o["chance"]) for o in mystery["odds_per_trigger"]}
    assert odds == {
        "green": Fraction(1200, 1363),
        "blue": Fraction(150, 1363),
        "red": Fraction(12, 1363),
        "diamond": Fraction(1, 1363),
    }
    assert mystery["odds_per_trigger"][-1]["one_in"] == "1,363"
    assert first_tier_to_three(tuple(mystery["cards"])) == (mystery["tier"], mystery["revealed"])


def test_the_same_seed_plays_the_same_spin_under_v2_and_v3_and_only_v3_adds_the_odds():
    for seed, v3 in _triggered_outcomes("rising-joker-v3", 3):
        v2 = engine_for_model("rising-joker-v2").play({"remainder_micro": 0}, 20, SpinRng(seed)).outcome
        odds = v3["mystery"].pop("odds_per_trigger")
        assert len(odds) == 4 and "odds_per_trigger" not in v2["mystery"]
        assert {**v3, "model_version": "rising-joker-v2"} == v2


def test_tier_chances_sum_to_one():
    mystery = load_model("rising-joker-v3").mystery
    assert sum(mystery.tier_chance(t.tier) for t in mystery.tiers) == 1
