"""The exact par sheet figures: the paytable of the rules, the stake-free main-game wheel value, jackpot odds."""

from __future__ import annotations

from fractions import Fraction

from games.stjernestoev import analytics
from games.stjernestoev.model import STAKES_MINOR, SYMBOLS
from shared.pools import load_pools
from stjernestoev_helpers import MODEL, PAY


def test_the_paytable_is_the_seeds_in_hundredths_of_the_total_stake():
    assert PAY[SYMBOLS.index("red"), 5] == 32 and PAY[SYMBOLS.index("red"), 12] == 650
    assert PAY[SYMBOLS.index("blue"), 15] == 3000 and PAY[SYMBOLS.index("bar"), 21] == 16000
    assert PAY[SYMBOLS.index("purple"), 20] == 10200 and PAY[SYMBOLS.index("silver"), 9] == 1200
    assert all(PAY[s, size] == 0 for s in range(7) for size in range(5))


def test_the_main_game_value_of_a_feature_is_the_same_at_all_17_stakes():
    rows = analytics.wheel_by_stake(MODEL)
    assert [row["stake_minor"] for row in rows] == list(STAKES_MINOR)
    assert len({row["main_game_per_feature_x_stake"] for row in rows}) == 1
    for row in rows:
        assert (1 - row["q"]) * row["fixed_mean_x_stake"] == analytics.fixed_ev_per_feature(MODEL)


def test_the_jackpot_chance_is_linear_in_stake_and_the_fixed_mean_rises_to_compensate():
    rows = {row["stake_minor"]: row for row in analytics.wheel_by_stake(MODEL)}
    assert rows[10000]["q"] == 200 * rows[50]["q"] == Fraction(33 * 10000, 30_000_000)
    assert rows[10000]["fixed_mean_x_stake"] > rows[50]["fixed_mean_x_stake"]


def test_jackpot_odds_per_staked_ore_are_equal_at_every_stake_and_use_the_pool_rates():
    network = load_pools().network_for_game("stjernestoev")
    ppm = {pool.tier: pool.contribution_ppm for pool in network.pools}
    seeds = {pool.tier: pool.seed_minor for pool in network.pools}
    assert sum(ppm.values()) == 4700
    rows = analytics.jackpot_odds(MODEL, 0.002, ppm, seeds)
    for tier in ("jackpot", "supernova"):
        wagers = {round(r["wagers_between_wins_minor"]) for r in rows if r["tier"] == tier}
        assert len(wagers) == 1


def test_batch_confidence_interval_uses_the_99_percent_normal_quantile():
    ci = analytics.batch_ci([1.0, 3.0])
    assert ci["mean"] == 2.0 and abs(ci["half_width_99"] - 2.5758293035489004) < 1e-12  # sd √2, k = 2
