"""The read side's payout arithmetic (shared/pools/payout.py) gives what the jackpot's released payout rules give:
for every policy of the pool files, stakes around the full-share stake and levels with and without a remainder."""

from services.jackpot.core import payout as released
from shared.pools import PayoutPolicy, load_pools
from shared.pools import payout


def test_share_and_payout_equal_the_released_rules_for_every_pool():
    policies = [pool.payout for network in load_pools().networks for pool in network.pools]
    policies += [PayoutPolicy(policy="full"), PayoutPolicy(policy="proportional", full_share_stake_minor=250)]
    stakes = (1, 10, 99, 100, 101, 250, 1_000, 5_000, 100_000)
    levels = (0, 1, 999_999, 1_000_000, 123_456_789, 10**12 + 7)
    for policy in policies:
        for stake_minor in stakes:
            assert payout.share_ppm(policy, stake_minor) == released.share_ppm(policy, stake_minor)
            for level_micro in levels:
                assert payout.payout_minor(policy, level_micro, stake_minor) == released.payout_minor(
                    policy, level_micro, stake_minor
                )
