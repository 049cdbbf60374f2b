"""A pool's payout policy at a stake: the share of the level a claim takes and what that share pays, for the read
side (monitor, audit); the jackpot's released payout rules hold the same arithmetic and a test keeps the two equal."""

from __future__ import annotations

from shared.money import MICRO_PER_MINOR, PPM, micro_floor_to_minor
from shared.pools import PayoutPolicy


def share_ppm(policy: PayoutPolicy, stake_minor: int) -> int:
    """The share of the level a claim at this stake takes, in ppm (rounded down; informative, the payout is exact)."""
    if policy.policy == "full":
        return PPM
    return min(PPM, stake_minor * PPM // policy.full_share_stake_minor)


def payout_minor(policy: PayoutPolicy, level_micro: int, stake_minor: int) -> int:
    """What a claim at this stake wins from a level, in whole minor units rounded down (full: the whole level;
    proportional: level x stake / full_share_stake, capped at the whole level)."""
    if policy.policy == "full":
        return micro_floor_to_minor(level_micro)[0]
    effective_stake_minor = min(stake_minor, policy.full_share_stake_minor)
    return level_micro * effective_stake_minor // (policy.full_share_stake_minor * MICRO_PER_MINOR)
