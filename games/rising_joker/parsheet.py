"""Par sheet figures of a Rising Joker model from its full-cycle counts: exact fractions, no I/O. All figures are per
unit of total stake; X is the exact house win of one spin (lines + scatter + fixed mystery prize)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from shared.money import MICRO_PER_MINOR, PPM
from games.rising_joker.fullcycle import Cycle
from games.rising_joker.model import RisingJokerModel

TARGET_TOTAL = Fraction(9550, 10000)
TOLERANCE = Fraction(5, 10000)
Z_90 = 1.6448536269514722  # two-sided, at 0.90 confidence: the volatility index is z * SD
GAMES_100M = 100_000_000
BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10**9)  # in stakes, left-closed


def _pct(value: Fraction) -> str:
    return f"{float(value) * 100:.4f} %"


def _odds(probability: Fraction) -> float | None:
    return float(1 / probability) if probability else None


def rtp(model: RisingJokerModel, cycle: Cycle, contribution_ppm: int) -> dict[str, Fraction]:
    """Exact return by component."""
    n = cycle.cycle
    lose = Fraction(int(cycle.histogram[0]), n)
    trigger = model.mystery.trigger.probability
    weight_sum = sum(model.mystery.weights)
    parts = {
        f"lines_{name}": Fraction(int(cycle.lines_by_symbol[model.symbol_index(name)]), 100 * n)
        for name in model.line_pays
    }
    parts["lines"] = sum(parts.values(), Fraction(0))
    parts["scatter"] = Fraction(cycle.scatter_sum, 100 * n)
    for tier in model.mystery.tiers:
        parts[f"mystery_{tier.tier}"] = lose * trigger * Fraction(tier.weight * tier.fixed_hundredths, 100 * weight_sum)
    parts["mystery_fixed"] = sum((parts[f"mystery_{t.tier}"] for t in model.mystery.tiers), Fraction(0))
    parts["base_total"] = parts["lines"] + parts["scatter"] + parts["mystery_fixed"]
    parts["contribution"] = Fraction(contribution_ppm, PPM)
    parts["total"] = parts["base_total"] + parts["contribution"]
    return parts


def distribution(model: RisingJokerModel, cycle: Cycle) -> list[tuple[Fraction, Fraction]]:
    """(win in stakes, probability) for every distinct win, mystery prizes included; sorted by win."""
    n = cycle.cycle
    trigger = model.mystery.trigger.probability
    weight_sum = sum(model.mystery.weights)
    lose = Fraction(int(cycle.histogram[0]), n)
    by_win: dict[Fraction, Fraction] = {Fraction(0): lose * (1 - trigger)}
    for factor in np.nonzero(cycle.histogram)[0][1:]:
        by_win[Fraction(int(factor), 100)] = Fraction(int(cycle.histogram[factor]), n)
    for tier in model.mystery.tiers:
        win = Fraction(tier.fixed_hundredths, 100)
        by_win[win] = by_win.get(win, Fraction(0)) + lose * trigger * Fraction(tier.weight, weight_sum)
    return sorted(by_win.items())


def moments(dist: list[tuple[Fraction, Fraction]]) -> dict[str, Any]:
    mean = sum((w * p for w, p in dist), Fraction(0))
    second = sum((w * w * p for w, p in dist), Fraction(0))
    sd = float(second - mean * mean) ** 0.5
    hit = sum((p for w, p in dist if w > 0), Fraction(0))
    return {
        "mean": mean,
        "sd": sd,
        "volatility_index_90": Z_90 * sd,
        "hit_frequency": hit,
        "max_win": max(w for w, p in dist if p > 0),
    }


def buckets(dist: list[tuple[Fraction, Fraction]]) -> list[dict[str, Any]]:
    rows = []
    for low, high in zip(BUCKETS, BUCKETS[1:]):
        if low == 0:
            p = sum((q for w, q in dist if w == 0), Fraction(0))
            label = "0 (no win)"
        else:
            p = sum((q for w, q in dist if low <= w < high), Fraction(0))
            label = f"[{low}, {high})" if high < 10**9 else f">= {low}"
        p_low = sum((q for w, q in dist if 0 < w < 1), Fraction(0)) if low == 1 else None
        if p_low is not None:
            rows.append({"bucket": "(0, 1)", "probability": float(p_low)})
        rows.append({"bucket": label, "probability": float(p)})
    return rows


def awards(model: RisingJokerModel, cycle: Cycle, parts: dict[str, Fraction]) -> list[dict[str, Any]]:
    """Every advertised award, its per-spin probability and whether it shows in 100 million games."""
    n = cycle.cycle
    rows = []
    for name, pays in model.line_pays.items():
        code = model.symbol_index(name)
        for count in (3, 4, 5):
            rows.append(
                (f"{count} x {name}", pays.for_count(count), Fraction(int(cycle.award_spins[code * 3 + count - 3]), n))
            )
    for count in (3, 4, 5):
        rows.append(
            (
                f"{count} x star (scatter)",
                model.scatter_pays.for_count(count),
                Fraction(int(cycle.award_spins[len(model.symbols) * 3 + count - 3]), n),
            )
        )
    lose = Fraction(int(cycle.histogram[0]), n)
    weight_sum = sum(model.mystery.weights)
    for tier in model.mystery.tiers:
        p = lose * model.mystery.trigger.probability * Fraction(tier.weight, weight_sum)
        rows.append((f"Diamond Mystery {tier.tier}", tier.fixed_hundredths, p))
    return [
        {
            "award": label,
            "factor": factor / 100,
            "probability": float(p),
            "one_in": _odds(p),
            "expected_in_100m": float(p * GAMES_100M),
            "reachable_in_100m": p * GAMES_100M >= 1,
        }
        for label, factor, p in rows
    ]


def _remainder_chain(increments: dict[int, Fraction]) -> dict[int, Fraction]:
    """Stationary law of a player's carried remainder (micro, mod one cent) when each spin adds an increment with the
    given probabilities: uniform on the residues the increments reach from 0 (the walk is doubly stochastic),
    checked."""
    reached, frontier = {0}, [0]
    while frontier:
        r = frontier.pop()
        for d in increments:
            nxt = (r + d) % MICRO_PER_MINOR
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    pi = {r: Fraction(1, len(reached)) for r in reached}
    after = {r: Fraction(0) for r in reached}
    for r, p_r in pi.items():
        for d, p_d in increments.items():
            after[(r + d) % MICRO_PER_MINOR] += p_r * p_d
    assert after == pi, "the uniform law is stationary"
    return pi


def stake_returns(model: RisingJokerModel, cycle: Cycle, parts: dict[str, Fraction]) -> list[dict[str, Any]]:
    """Per stake, exactly: the long-run return the house pays to the player and what goes to the pools as breakage.

    v1: each spin pays its exact win rounded down; the remainder is breakage. From v2 the remainder is carried in the
    player's state, so the long-run paid return is E[floor((r + X) / cent)] under the remainder's stationary law."""
    n = cycle.cycle
    factors = [int(f) for f in np.nonzero(cycle.histogram)[0]]
    rows = []
    for stake in model.stakes_minor:
        per_hundredth = stake * MICRO_PER_MINOR // 100
        p = {f: Fraction(int(cycle.histogram[f]), n) for f in factors}
        if model.carries_remainder:
            increments: dict[int, Fraction] = {}
            for f, q in p.items():
                step = (f * per_hundredth) % MICRO_PER_MINOR
                increments[step] = increments.get(step, Fraction(0)) + q
            pi = _remainder_chain(increments)
            paid_micro = sum(
                (
                    p_r * q * ((r + f * per_hundredth) // MICRO_PER_MINOR) * MICRO_PER_MINOR
                    for r, p_r in pi.items()
                    for f, q in p.items()
                ),
                Fraction(0),
            )
            states = sorted(pi)
        else:
            paid_micro = sum(
                (q * (f * per_hundredth // MICRO_PER_MINOR) * MICRO_PER_MINOR for f, q in p.items()), Fraction(0)
            )
            states = [0]
        paid_base = paid_micro / (stake * MICRO_PER_MINOR)
        paid = paid_base + parts["mystery_fixed"]  # the fixed prizes are whole cents at every stake
        rows.append(
            {
                "stake_minor": stake,
                "half_cents": stake % 20 != 0,
                "paid_by_house": paid,
                "breakage_to_pools": parts["base_total"] - paid,
                "remainder_states_micro": states,
            }
        )
    return rows
