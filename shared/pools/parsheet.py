"""The par sheet of a must-drop-by-amount pool: expected drop level, wagers per drop, hit frequency and RTP share per
stake, by simulation of the pool's own rules (independent of the jackpot service, so a platform run can be held
against it), with the renewal-theory approximation beside it and a two-sample Kolmogorov–Smirnov test."""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

from shared.money import MICRO_PER_MINOR, PPM
from shared.pools import PoolConfig


@dataclass(frozen=True)
class StakeMix:
    """Which stakes players wager and how often (integer weights)."""

    stakes_minor: tuple[int, ...]
    weights: tuple[int, ...]

    def mean_minor(self) -> float:
        return sum(s * w for s, w in zip(self.stakes_minor, self.weights)) / sum(self.weights)


@dataclass
class DropSheet:
    drops: int
    wagers: int
    seed_minor: int = 0
    drop_levels_micro: list[int] = field(default_factory=list)
    wins_by_stake: dict[int, int] = field(default_factory=dict)
    wagers_by_stake: dict[int, int] = field(default_factory=dict)
    paid_by_stake_minor: dict[int, int] = field(default_factory=dict)

    def mean_drop_level_minor(self) -> float:
        return sum(self.drop_levels_micro) / len(self.drop_levels_micro) / MICRO_PER_MINOR

    def hit_frequency(self, stake_minor: int) -> float:
        """Drops per wager at this stake."""
        return self.wins_by_stake.get(stake_minor, 0) / max(1, self.wagers_by_stake.get(stake_minor, 0))

    def rtp_share(self, stake_minor: int | None = None, with_seeds: bool = True) -> float:
        """What the pool paid back per unit staked (at one stake, or over all), with the operator's seeds or only
        what the players' contributions added above them."""
        return rtp_share(
            self.paid_by_stake_minor,
            self.wins_by_stake,
            self.wagers_by_stake,
            stake_minor,
            0 if with_seeds else self.seed_minor,
        )


def rtp_share(
    paid_by_stake_minor: dict[int, int],
    wins_by_stake: dict[int, int],
    wagers_by_stake: dict[int, int],
    stake_minor: int | None,
    seed_minor: int,
) -> float:
    """Paid back per unit staked, less `seed_minor` per win (the operator's part); one stake or all of them."""
    stakes = [stake_minor] if stake_minor is not None else list(wagers_by_stake)
    paid = sum(paid_by_stake_minor.get(s, 0) - seed_minor * wins_by_stake.get(s, 0) for s in stakes)
    staked = sum(s * wagers_by_stake.get(s, 0) for s in stakes)
    return paid / staked if staked else 0.0


def simulate(pool: PoolConfig, mix: StakeMix, drops: int, rng: random.Random) -> DropSheet:
    """`drops` cycles of the pool: a drop point uniform in (seed, ceiling], wagers drawn from the mix, each adding
    stake × rate (capped at the ceiling); the first wager at or above the minimum stake once the level reaches the
    point wins the whole level (rounded down to the minor unit); the pool reseeds to its seed."""
    rules = pool.must_drop
    cumulative = list(accumulate(mix.weights))
    seed_micro = pool.seed_minor * MICRO_PER_MINOR
    ceiling_micro = rules.ceiling_minor * MICRO_PER_MINOR
    sheet = DropSheet(drops=drops, wagers=0, seed_minor=pool.seed_minor)
    for _ in range(drops):
        point_micro = (pool.seed_minor + 1 + rng.randrange(rules.ceiling_minor - pool.seed_minor)) * MICRO_PER_MINOR
        level_micro = seed_micro
        while True:
            stake = mix.stakes_minor[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            sheet.wagers += 1
            sheet.wagers_by_stake[stake] = sheet.wagers_by_stake.get(stake, 0) + 1
            level_micro = min(ceiling_micro, level_micro + stake * pool.contribution_ppm_at(stake))
            if level_micro >= point_micro and stake >= rules.min_stake_minor:
                break
        sheet.drop_levels_micro.append(level_micro)
        sheet.wins_by_stake[stake] = sheet.wins_by_stake.get(stake, 0) + 1
        sheet.paid_by_stake_minor[stake] = sheet.paid_by_stake_minor.get(stake, 0) + level_micro // MICRO_PER_MINOR
    return sheet


def expected_drop_level_minor(pool: PoolConfig, mix: StakeMix) -> float:
    """Renewal-theory approximation without a minimum stake: E[point] + E[c²] / (2 E[c]) (the mean overshoot),
    valid while contributions are small against the range."""
    total = sum(mix.weights)
    mean_c = sum(w * s * pool.contribution_ppm_at(s) for s, w in zip(mix.stakes_minor, mix.weights)) / total
    mean_c2 = sum(w * (s * pool.contribution_ppm_at(s)) ** 2 for s, w in zip(mix.stakes_minor, mix.weights)) / total
    mean_point_minor = (pool.seed_minor + 1 + pool.must_drop.ceiling_minor) / 2
    return mean_point_minor + mean_c2 / (2 * mean_c) / MICRO_PER_MINOR


def contribution_rtp(pool: PoolConfig) -> float:
    """The players' part of the pool's RTP share: its rate (every contributed micro-unit is paid back)."""
    return pool.contribution_ppm / PPM


def ks_two_sample(left: list[float], right: list[float]) -> tuple[float, float]:
    """The two-sample Kolmogorov–Smirnov statistic D and its asymptotic p-value (Kolmogorov's series)."""
    a, b = sorted(left), sorted(right)
    n, m = len(a), len(b)
    i = j = 0
    statistic = 0.0
    while i < n and j < m:
        value = min(a[i], b[j])
        while i < n and a[i] == value:
            i += 1
        while j < m and b[j] == value:
            j += 1
        statistic = max(statistic, abs(i / n - j / m))
    effective = math.sqrt(n * m / (n + m))
    lam = (effective + 0.12 + 0.11 / effective) * statistic
    return statistic, _kolmogorov_q(lam)


def _kolmogorov_q(lam: float) -> float:
    if lam < 1e-3:
        return 1.0
    total = sum(2 * (-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return min(1.0, max(0.0, total))
