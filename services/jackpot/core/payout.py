"""The pure money rules of a pool: each pool's share of a wager, and what a claim takes from a level."""

from __future__ import annotations

from collections.abc import Sequence

from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR, PPM, contribution_micro, micro_floor_to_minor, split_by_weights
from shared.pools import PayoutPolicy, PoolConfig


def split_contribution(pools: Sequence[PoolConfig], stake_minor: int, breakage_micro: int) -> list[int]:
    """Each pool's exact part of one wager in micro-units: stake x its rate, plus its rate-weighted part of breakage."""
    rates = [pool.contribution_ppm_at(stake_minor) for pool in pools]
    breakage_parts = split_by_weights(breakage_micro, rates) if breakage_micro else [0] * len(rates)
    return [contribution_micro(stake_minor, rate) + part for rate, part in zip(rates, breakage_parts)]


def share_ppm(policy: PayoutPolicy, stake_minor: int) -> int:
    """The share of the level a claim at this stake takes, in ppm (rounded down; informative, the payout is exact)."""
    if policy.policy == "full":
        return PPM
    full_stake_minor = policy.full_share_stake_minor
    return min(PPM, stake_minor * PPM // full_stake_minor)


def payout_minor(policy: PayoutPolicy, level_micro: int, stake_minor: int) -> int:
    """What a claim wins, in whole minor units rounded down; the sub-unit remainder stays in the pool.

    proportional: level x stake / full_share_stake, capped at the whole level; full: the whole level.
    """
    invariant(level_micro >= 0, "a level is never negative")
    invariant(stake_minor > 0, "a claim has a positive stake")
    if policy.policy == "full":
        whole_minor, _ = micro_floor_to_minor(level_micro)
        return whole_minor
    full_stake_minor = policy.full_share_stake_minor
    effective_stake_minor = min(stake_minor, full_stake_minor)
    amount_minor = level_micro * effective_stake_minor // (full_stake_minor * MICRO_PER_MINOR)
    invariant(amount_minor * MICRO_PER_MINOR <= level_micro, "a payout never exceeds the level")
    return amount_minor
