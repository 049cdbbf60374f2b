"""The engine as the spin service plays it: stake pricing, half cents and breakage, the mystery draw, golden seeds."""

from __future__ import annotations

import hashlib
import json

import pytest

from games.rising_joker import current_engine, engine_for_model
from games.rising_joker.engine import RisingJokerEngine
from games.rng import SpinRng
from tests_rising_joker_fakes import ScriptedRng  # this folder is on sys.path (pytest rootdir import mode)

ONE_CHERRY_LINE = [
    ["grape", "joker", "orange", "gold_seven", "strawberry"],
    ["cherry", "bell", "cherry", "bell", "grape"],
    ["melon", "strawberry", "lemon", "red_seven", "bell"],
]
LOSING = [
    ["grape", "orange", "cherry", "gold_seven", "strawberry"],
    ["bell", "star", "bell", "bell", "bell"],
    ["melon", "lemon", "strawberry", "red_seven", "cherry"],
]


def test_engine_exposes_the_contract_the_spin_service_expects():
    engine = current_engine()
    assert (engine.game, engine.currency, engine.model_version) == ("rising-joker", "EUR", "rising-joker-v3")
    assert engine.stakes_minor == (10, 20, 30, 40, 50, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000)
    assert engine.initial_state() == {"remainder_micro": 0}
    assert engine.locked_stake({"remainder_micro": 500_000}) is None
    assert engine.forfeit({"remainder_micro": 500_000}) == {"remainder_micro": 500_000}
    assert engine_for_model("rising-joker-v3") is engine
    v1 = engine_for_model("rising-joker-v1")
    assert (v1.model_version, v1.initial_state()) == ("rising-joker-v1", {})


def test_unknown_model_version_is_refused():
    with pytest.raises(KeyError):
        engine_for_model("rising-joker-v0")


def test_a_stake_off_the_list_is_a_programmer_error(showing):
    with pytest.raises(AssertionError):
        RisingJokerEngine(showing(ONE_CHERRY_LINE)).play({}, 25, ScriptedRng([0, 0, 0, 0, 0]))


def test_under_v1_a_half_cent_at_stake_10_is_rounded_down_and_the_half_goes_to_breakage(showing_v1):
    result = RisingJokerEngine(showing_v1(ONE_CHERRY_LINE)).play({}, 10, ScriptedRng([0, 0, 0, 0, 0]))
    assert (result.win_minor, result.breakage_micro, result.claims) == (0, 500_000, ())
    assert result.outcome["totals"]["exact_win_micro"] == 500_000
    assert result.outcome["line_wins"][0]["amount_micro"] == 500_000
    assert result.outcome["losing_spin"] is False
    assert result.outcome["mystery"]["drawn"] is False


@pytest.mark.parametrize(
    "stake_minor, win_minor, breakage_micro", [(20, 1, 0), (30, 1, 500_000), (750, 37, 500_000), (2000, 100, 0)]
)
def test_under_v1_the_low_fruit_factor_is_exact_at_every_stake(showing_v1, stake_minor, win_minor, breakage_micro):
    result = RisingJokerEngine(showing_v1(ONE_CHERRY_LINE)).play({}, stake_minor, ScriptedRng([0, 0, 0, 0, 0]))
    assert (result.win_minor, result.breakage_micro) == (win_minor, breakage_micro)


def test_a_players_half_cent_is_carried_in_their_state_and_paid_with_the_next_half(showing):
    engine = RisingJokerEngine(showing(ONE_CHERRY_LINE))
    first = engine.play(engine.initial_state(), 10, ScriptedRng([0, 0, 0, 0, 0]))
    assert (first.win_minor, first.breakage_micro, first.state_after) == (0, 0, {"remainder_micro": 500_000})
    assert first.outcome["totals"]["exact_win_micro"] == 500_000
    assert first.outcome["mystery"]["drawn"] is False  # the exact win is not 0, so no Mystery, as GAMES.md has it
    second = engine.play(first.state_after, 10, ScriptedRng([0, 0, 0, 0, 0]))
    assert (second.win_minor, second.breakage_micro, second.state_after) == (1, 0, {"remainder_micro": 0})
    assert second.outcome["totals"]["carried_in_micro"] == 500_000


def test_a_carried_remainder_is_paid_at_any_later_stake_and_a_losing_spin_keeps_it(showing):
    engine = RisingJokerEngine(showing(LOSING))
    denominator = engine.model.mystery.trigger.denominator
    kept = engine.play({"remainder_micro": 500_000}, 100, ScriptedRng([0, 0, 0, 0, 0, denominator - 1]))
    assert (kept.win_minor, kept.state_after) == (0, {"remainder_micro": 500_000})
    assert kept.outcome["mystery"]["drawn"] is True
    paid = RisingJokerEngine(showing(ONE_CHERRY_LINE)).play(kept.state_after, 30, ScriptedRng([0, 0, 0, 0, 0]))
    assert (paid.win_minor, paid.state_after) == (2, {"remainder_micro": 0})  # 1.5 + 0.5 cents


@pytest.mark.parametrize(
    "state", [{"remainder_micro": 1_000_000}, {"remainder_micro": -1}, {"other": 0}, {"remainder_micro": 0.5}]
)
def test_a_state_that_holds_anything_but_a_sub_cent_remainder_is_a_programmer_error(showing, state):
    with pytest.raises(AssertionError):
        RisingJokerEngine(showing(ONE_CHERRY_LINE)).play(state, 10, ScriptedRng([0, 0, 0, 0, 0]))


def test_a_winning_spin_never_draws_the_mystery(showing):
    rng = ScriptedRng([0, 0, 0, 0, 0])
    RisingJokerEngine(showing(ONE_CHERRY_LINE)).play({}, 100, rng)
    assert rng.values == [] and rng.draws == 5


def test_a_losing_spin_draws_the_trigger_and_may_stay_empty(showing):
    engine = RisingJokerEngine(showing(LOSING))
    denominator = engine.model.mystery.trigger.denominator
    result = engine.play({}, 100, ScriptedRng([0, 0, 0, 0, 0, denominator - 1]))
    assert (result.win_minor, result.breakage_micro, result.claims) == (0, 0, ())
    assert result.outcome["mystery"]["drawn"] is True
    assert result.outcome["mystery"]["triggered"] is False


@pytest.mark.parametrize(
    "tier_index, tier, fixed_minor",
    [(0, "green", 5_000), (1, "blue", 20_000), (2, "red", 125_000), (3, "diamond", 500_000)],
)
def test_a_triggered_mystery_pays_the_fixed_prize_and_claims_its_tier(showing, tier_index, tier, fixed_minor):
    engine = RisingJokerEngine(showing(LOSING))
    # stops, trigger hit (0 < numerator), tier, three 'cards shown' draws, then shuffles (always index 0)
    result = engine.play({}, 100, ScriptedRng([0, 0, 0, 0, 0, 0, tier_index, 2, 2, 2] + [0] * 20))
    assert result.claims == (tier,)
    assert result.win_minor == fixed_minor
    mystery = result.outcome["mystery"]
    assert (mystery["triggered"], mystery["tier"], mystery["fixed_minor"]) == (True, tier, fixed_minor)
    assert mystery["revealed"] == 9 and sorted(mystery["cards"]) == sorted(["green", "blue", "red", "diamond"] * 3)
    assert mystery["cards"][mystery["revealed"] - 1] == tier


GOLDEN = [  # pinned under v1. seed label i: seed = sha256(f"rising-joker-golden-{i}"), stake 30
    (0, [34, 27, 32, 30, 6], 0, 0, (), 7, "caeef43676c2652891b94fba48d0445bc6dfa76fec20ebff6f9594076b194ec3"),
    (3, [16, 13, 35, 25, 31], 1, 500000, (), 8, "5ed11571eb483792b3867c9313ee499ad94749fd3ec5a610cd95bc2178f286e1"),
    (7, [3, 19, 29, 34, 27], 1, 500000, (), 11, "8381260c5c382219932882b3518734107e15aac55e7ee674c1dfc793c1653c94"),
    (9, [5, 14, 10, 15, 19], 30, 0, (), 8, "15a2824d25167f1a512b015ed039d7137b5e6dddf60ae4ef5af6a78d920e90aa"),
    (34, [5, 9, 22, 18, 16], 150, 0, (), 7, "c7a78d28e36b037d8aa225ce225e1c18d712bc75f16198d33a2c83342e84e236"),
    (
        3517,
        [33, 27, 22, 35, 27],
        1500,
        0,
        ("green",),
        22,
        "0e300325c2a509f7cdc2736538b9e5a544f3e4d1a72852adbc74d8c88c139c64",
    ),
]


@pytest.mark.parametrize("label, stops, win_minor, breakage_micro, claims, words, outcome_sha256", GOLDEN)
def test_golden_seeds_replay_the_same_outcome_forever(
    label, stops, win_minor, breakage_micro, claims, words, outcome_sha256
):
    rng = SpinRng(hashlib.sha256(f"rising-joker-golden-{label}".encode()).digest())
    result = engine_for_model("rising-joker-v1").play({}, 30, rng)
    assert result.outcome["stops"] == stops
    assert (result.win_minor, result.breakage_micro, result.claims, rng.draws) == (
        win_minor,
        breakage_micro,
        claims,
        words,
    )
    assert hashlib.sha256(json.dumps(result.outcome, sort_keys=True).encode()).hexdigest() == outcome_sha256


def test_v2_replays_the_v1_golden_seeds_with_the_same_stops_and_pays_each_half_cent_back_later():
    state, paid_minor, exact_micro = {"remainder_micro": 0}, 0, 0
    for label, stops, win_minor, breakage_micro, claims, words, _ in GOLDEN:
        rng = SpinRng(hashlib.sha256(f"rising-joker-golden-{label}".encode()).digest())
        result = current_engine().play(state, 30, rng)
        assert (result.outcome["stops"], result.claims, rng.draws, result.breakage_micro) == (stops, claims, words, 0)
        paid_minor += result.win_minor
        exact_micro += result.outcome["totals"]["exact_win_micro"]
        state = result.state_after
    assert paid_minor * 1_000_000 + state["remainder_micro"] == exact_micro
    assert state == {"remainder_micro": 0} and paid_minor == 1 + 1 + 1 + 30 + 150 + 1500  # v1 paid 1 + 1 for 2 halves
