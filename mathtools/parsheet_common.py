"""Par sheet figures both games share: RTP ranges by number of games played, and the economics of a progressive
pool (expected level at a win, the operator's reseed return, the award with the pool) from its dynamics."""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

GAMES_PLAYED = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
LEVELS = (0.90, 0.95, 0.99)


def rtp_ranges(rtp: float, sd: float) -> list[dict[str, Any]]:
    """The band a player's (or a machine's) average return lies in after n games, at each confidence level:
    rtp ± z·σ/√n (central limit; for 1e3 games of a long-tailed game read it as indicative)."""
    rows = []
    for n in GAMES_PLAYED:
        row: dict[str, Any] = {"games": n}
        for level in LEVELS:
            z = NormalDist().inv_cdf(0.5 + level / 2)
            row[f"{int(level * 100)}"] = [rtp - z * sd / math.sqrt(n), rtp + z * sd / math.sqrt(n)]
        rows.append(row)
    return rows


def rtp_ranges_markdown(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| games | 90 % | 95 % | 99 % |", "|---|---|---|---|"]
    for row in rows:
        cells = [f"{row[k][0] * 100:.2f} % – {row[k][1] * 100:.2f} %" for k in ("90", "95", "99")]
        lines.append(f"| {row['games']:,} | " + " | ".join(cells) + " |")
    return lines


def pool_dynamics(
    *, contribution_per_spin: float, win_chance: float, share: float, seed: float, wins: int, rng_seed: int
) -> dict[str, float]:
    """A pool fed `contribution_per_spin` (same unit as `seed`) by every spin, won with `win_chance` per spin, paying
    `share` of its level, topped up to `seed` by the operator when a win leaves less: simulated over `wins` wins from
    the seed. Returns the mean level at a win, quantiles, the mean award, and the mean top-up per win."""
    rng = np.random.default_rng(rng_seed)
    gaps = rng.geometric(win_chance, wins).astype(np.float64)
    level, at_win, topups = seed, np.empty(wins), np.empty(wins)
    for i in range(wins):
        level += contribution_per_spin * gaps[i]
        at_win[i] = level
        level *= 1 - share
        topups[i] = max(0.0, seed - level)
        level = max(level, seed)
    burn = wins // 20
    kept, topped = at_win[burn:], topups[burn:]
    return {
        "mean_level_at_win": float(kept.mean()),
        "level_at_win_p50": float(np.quantile(kept, 0.5)),
        "level_at_win_p99": float(np.quantile(kept, 0.99)),
        "level_at_win_p999": float(np.quantile(kept, 0.999)),
        "mean_award": float(share * kept.mean()),
        "mean_topup_per_win": float(topped.mean()),
        "reseed_per_spin": float(topped.mean() * win_chance),
    }


def displayed_rtp_percent(long_run_percent: float) -> str:
    """The RTP shown to players: the stake-funded long-run return truncated to two decimals, so it never
    overstates; operator-funded reseeds are never in it (they depend on the network, not on the stake)."""
    return f"{math.floor(round(long_run_percent * 100, 6)) / 100:.2f} %"
