"""Observed RTP of a window or a cell with its confidence interval from the par sheet's σ, and GGR (statistics)."""

from __future__ import annotations

import math

from services.monitor.core.par import ParFigures
from shared.money import MICRO_PER_MINOR

Z_99 = 2.5758293


def summary(stats: dict, stake_minor: int | None, par: ParFigures | None) -> dict:
    """What a page shows for cell or window sums: spins, money, observed RTP ± z·σ/√n_eff, GGR.

    n_eff = (Σ stake)² / Σ stake² is the number of spins for one stake, and less when stakes differ (RTP is a
    stake-weighted mean).

    GGR is what the operator keeps: wagers − house wins − pool shares paid (contributions stay in the pools)."""
    spins, wagered = stats["spins"], stats["wagered_minor"]
    rtp = stats["return_micro"] / (wagered * MICRO_PER_MINOR) if wagered else None
    n_eff = wagered * wagered / stats["stake_sq_minor"] if stats["stake_sq_minor"] else 0
    half = None if par is None or n_eff == 0 else Z_99 * par.sd / math.sqrt(n_eff)
    inside = None if rtp is None or half is None else abs(rtp - par.rtp) <= half
    return {
        "spins": spins,
        "wagered_minor": wagered,
        "house_win_minor": stats["house_win_minor"],
        "pool_win_minor": stats["pool_win_minor"],
        "hits": stats["hits"],
        "hit_rate": stats["hits"] / spins if spins else None,
        "ggr_minor": wagered - stats["house_win_minor"] - stats["pool_win_minor"],
        "rtp": rtp,
        "rtp_low": None if half is None or rtp is None else rtp - half,
        "rtp_high": None if half is None or rtp is None else rtp + half,
        "par_rtp": None if par is None else par.rtp,
        "par_inside": inside,
        "stake_minor": stake_minor,
    }
