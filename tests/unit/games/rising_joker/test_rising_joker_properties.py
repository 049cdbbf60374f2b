"""Invariants over random stops of the released strips (hypothesis), and the reveal sequence over random seeds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.money import MICRO_PER_MINOR
from games.rising_joker import current_engine
from games.rising_joker.engine import outcome_json
from games.rising_joker.evaluate import _expand, evaluate_stops, line_wins
from games.rising_joker.model import TIERS, load_model
from games.rising_joker.mystery import first_tier_to_three, reveal_sequence
from games.rng import SpinRng

MODEL = load_model()
stops_strategy = st.tuples(*(st.integers(0, len(strip) - 1) for strip in MODEL.reels))
stakes = st.sampled_from(MODEL.stakes_minor)


@settings(max_examples=300, deadline=None)
@given(stops=stops_strategy, stake_minor=stakes, carried=st.integers(0, MICRO_PER_MINOR - 1))
def test_win_is_never_negative_and_the_total_is_the_sum_of_its_parts(stops, stake_minor, carried):
    outcome = outcome_json(MODEL, evaluate_stops(MODEL, stops), stake_minor, False, None, carried)
    totals = outcome["totals"]
    assert totals["win_minor"] >= 0 and totals["breakage_micro"] == 0
    assert 0 <= totals["remainder_after_micro"] < MICRO_PER_MINOR
    assert totals["lines_micro"] == sum(win["amount_micro"] for win in outcome["line_wins"])
    assert totals["exact_win_micro"] == totals["lines_micro"] + totals["scatter_micro"] + totals["mystery_fixed_micro"]
    paid_and_kept = totals["win_minor"] * MICRO_PER_MINOR + totals["remainder_after_micro"]
    assert paid_and_kept == totals["exact_win_micro"] + carried


@settings(max_examples=300, deadline=None)
@given(stops=stops_strategy)
def test_expansion_never_lowers_a_win_and_equals_expanding_every_joker_reel(stops):
    spin = evaluate_stops(MODEL, stops)
    unexpanded = sum(w.factor_hundredths for w in line_wins(MODEL, spin.before))
    joker_reels = {r for r, column in enumerate(spin.before) if MODEL.wild in column}
    all_expanded = sum(w.factor_hundredths for w in line_wins(MODEL, _expand(MODEL, spin.before, joker_reels)))
    assert spin.lines_hundredths >= unexpanded
    assert spin.lines_hundredths == all_expanded
    assert set(spin.expanded_reels) <= {r + 1 for r in joker_reels}


@settings(max_examples=100, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), stake_minor=stakes)
def test_play_prices_exactly_and_claims_only_after_a_losing_spin(seed, stake_minor):
    result = current_engine().play({"remainder_micro": 500_000}, stake_minor, SpinRng(seed))
    outcome = result.outcome
    assert (
        result.win_minor * MICRO_PER_MINOR + result.state_after["remainder_micro"]
        == outcome["totals"]["exact_win_micro"] + 500_000
    )
    assert outcome["mystery"]["drawn"] == outcome["losing_spin"]
    assert result.claims == ((outcome["mystery"]["tier"],) if outcome["mystery"]["triggered"] else ())


@settings(max_examples=200, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), tier=st.sampled_from(TIERS))
def test_the_reveal_sequence_always_completes_the_drawn_tier_first(seed, tier):
    cards, revealed = reveal_sequence(tier, SpinRng(seed))
    assert sorted(cards) == sorted(TIERS * 3)
    assert first_tier_to_three(cards) == (tier, revealed)
