"""Payout rules: the stake-proportional share table of Diamond Mystery and the full-pool policy of Stjernestøv."""

from fractions import Fraction

import pytest

from shared.money import MICRO_PER_MINOR, PPM
from shared.pools import load_pools

from services.jackpot.core.payout import payout_minor, share_ppm, split_contribution

DIAMOND = load_pools().network("diamond-mystery")
STJERNE = load_pools().network("stjernestoev")
PROPORTIONAL = DIAMOND.pools[0].payout
FULL = STJERNE.pools[0].payout

# Rising Joker's 15 total stakes (cents) and the share of the pool each one wins (GAMES.md: stake / 20 EUR).
SHARE_TABLE = {
    10: Fraction(5, 1000),
    20: Fraction(1, 100),
    30: Fraction(15, 1000),
    40: Fraction(2, 100),
    50: Fraction(25, 1000),
    100: Fraction(5, 100),
    150: Fraction(75, 1000),
    200: Fraction(10, 100),
    300: Fraction(15, 100),
    400: Fraction(20, 100),
    500: Fraction(25, 100),
    750: Fraction(375, 1000),
    1000: Fraction(50, 100),
    1500: Fraction(75, 100),
    2000: Fraction(1),
}


@pytest.mark.parametrize("stake_minor,share", sorted(SHARE_TABLE.items()))
def test_each_rising_joker_stake_wins_its_share_of_the_level(stake_minor, share):
    assert share_ppm(PROPORTIONAL, stake_minor) == share * PPM
    level_micro = 123_456_789_012_345
    exact_minor = Fraction(level_micro, MICRO_PER_MINOR) * share
    assert payout_minor(PROPORTIONAL, level_micro, stake_minor) == int(exact_minor)  # rounded down


def test_the_share_table_has_all_fifteen_stakes_from_half_a_percent_to_all():
    assert len(SHARE_TABLE) == 15
    assert min(SHARE_TABLE.values()) == Fraction(5, 1000)
    assert max(SHARE_TABLE.values()) == 1


def test_a_proportional_share_is_capped_at_the_whole_level():
    assert payout_minor(PROPORTIONAL, 10 * MICRO_PER_MINOR + 999_999, 5000) == 10
    assert share_ppm(PROPORTIONAL, 5000) == PPM


def test_a_payout_is_rounded_down_to_the_minor_unit_and_never_up():
    # 0.5 % of 1.99 EUR is 0.995 cent: nothing whole to pay yet.
    assert payout_minor(PROPORTIONAL, 199 * MICRO_PER_MINOR, 10) == 0
    assert payout_minor(PROPORTIONAL, 200 * MICRO_PER_MINOR, 10) == 1


def test_the_full_policy_pays_the_whole_level_rounded_down():
    assert payout_minor(FULL, 100_000 * MICRO_PER_MINOR + 999_999, 50) == 100_000
    assert share_ppm(FULL, 50) == PPM


def test_a_contribution_splits_the_stake_by_each_pools_rate_exactly():
    parts = split_contribution(DIAMOND.pools, 10, 0)
    assert parts == [pool.contribution_ppm * 10 for pool in DIAMOND.pools]
    assert sum(parts) == DIAMOND.wager_contribution_micro(10)


def test_breakage_is_split_by_the_same_rates_and_nothing_is_lost():
    parts = split_contribution(DIAMOND.pools, 0, 500_001)
    assert sum(parts) == 500_001
    # 1500 : 2000 : 2500 : 4000 of 500,001 micro
    assert parts == [75_000, 100_000, 125_000, 200_001]
