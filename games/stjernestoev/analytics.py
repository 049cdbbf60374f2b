"""Exact figures of the par sheet that need no simulation: the wheel per stake, jackpot odds, rare awards, CIs."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from shared.invariant import invariant
from games.stjernestoev import kernel
from games.stjernestoev.model import RINGS, SEGMENTS, STAKES_MINOR, SYMBOLS, StjernestoevModel

Z_99 = 2.5758293035489004  # two-sided normal quantile at 0.99 confidence


def wheel_by_stake(model: StjernestoevModel) -> list[dict[str, Any]]:
    """Per stake: q = P(jackpot segment | wheel), E[fixed | no jackpot], and (1 - q) E[fixed] = sum(w v) / T.
    The last one is what the main game gets per feature; it must be one number for all 17 stakes."""
    wheel = model.data["wheel"]
    total = wheel["total_weight"]
    rows = []
    for stake in STAKES_MINOR:
        weights = [wheel["weights_by_stake"][str(stake)][name] for name in SEGMENTS]
        value_sum = sum(w * v for w, v in zip(weights, model.wheel_fixed_x_stake))
        q = Fraction(weights[0] + weights[1], total)
        fixed_mean = Fraction(value_sum, total - weights[0] - weights[1])
        rows.append(
            {
                "stake_minor": stake,
                "weights": dict(zip(SEGMENTS, weights)),
                "q": q,
                "q_per_stake_minor": q / stake,
                "fixed_mean_x_stake": fixed_mean,
                "main_game_per_feature_x_stake": (1 - q) * fixed_mean,
            }
        )
    invariant(len({row["main_game_per_feature_x_stake"] for row in rows}) == 1, "(1-q) E[fixed] is stake-free")
    invariant(len({row["q_per_stake_minor"] for row in rows}) == 1, "q is linear in stake")
    return rows


def fixed_ev_per_feature(model: StjernestoevModel) -> Fraction:
    """(1 - q(s)) E[fixed | s], the same at every stake (checked by wheel_by_stake)."""
    return wheel_by_stake(model)[0]["main_game_per_feature_x_stake"]


def jackpot_odds(
    model: StjernestoevModel, feature_rate: float, contribution_ppm: dict[str, int], seed_minor: dict[str, int]
) -> list[dict[str, Any]]:
    """Per stake and tier: chance per spin, spins and wagers between wins, mean growth of the pool between wins
    and the operator's reseed cost as a share of wagers (seed / wagers between wins)."""
    wheel = model.data["wheel"]
    rows = []
    for stake in STAKES_MINOR:
        for tier in ("jackpot", "supernova"):
            chance = feature_rate * wheel["weights_by_stake"][str(stake)][tier] / wheel["total_weight"]
            wagers_minor = stake / chance
            rows.append(
                {
                    "stake_minor": stake,
                    "tier": tier,
                    "chance_per_spin": chance,
                    "one_in": 1 / chance,
                    "wagers_between_wins_minor": wagers_minor,
                    "mean_growth_minor": wagers_minor * contribution_ppm[tier] / 1_000_000,
                    "reseed_share_of_wagers": seed_minor[tier] / wagers_minor,
                }
            )
    return rows


def full_board_chance(model: StjernestoevModel) -> dict[str, float]:
    """P(all 21 initial positions show one symbol) per symbol: the 21-cluster on the initial board."""
    weights = model.data["board_weights"]
    chances = {}
    for symbol in SYMBOLS:
        chance = Fraction(1)
        for ring, _, size in RINGS:
            row = weights[ring]
            chance *= Fraction(row[symbol], sum(row.values())) ** size
        chances[symbol] = float(chance)
    return chances


def circle_content_chances(model: StjernestoevModel) -> dict[str, float]:
    entries = model.data["bonus_circle_contents"]
    total = sum(e["weight"] for e in entries)
    return {
        f"{e['content']}{'' if 'multiplier' not in e else ' ' + str(e['multiplier']) + 'x'}": e["weight"] / total
        for e in entries
    }


def ring_empty_upper_bound(model: StjernestoevModel) -> float:
    """Expected spins from a full ring until 5 empty circles entered in a row (explosions only shorten it)."""
    p_empty = circle_content_chances(model)["empty"]
    n = kernel.N_CIRCLES
    return (1 - p_empty**n) / ((1 - p_empty) * p_empty**n)


def batch_ci(batch_means: list[float]) -> dict[str, float]:
    """Mean of independent equal-size batches and its normal confidence half-width at Z_99."""
    k = len(batch_means)
    invariant(k >= 2, "a confidence interval needs at least two batches")
    mean = sum(batch_means) / k
    sd = math.sqrt(sum((x - mean) ** 2 for x in batch_means) / (k - 1))
    return {"mean": mean, "batches": k, "batch_sd": sd, "half_width_99": Z_99 * sd / math.sqrt(k)}
