"""Each game's par figures from its committed par sheet (docs/math/<game>/parsheet.json)."""

from __future__ import annotations

import json
from pathlib import Path

from shared.par_sheets import MATH_DOCS, par_rtp
from services.monitor.core.par import ParFigures
from shared.pools import load_pools


def load_par_figures(math_docs: Path = MATH_DOCS) -> dict[str, ParFigures]:
    """Rising Joker's sheet is exact (full cycle); Stjernestøv's is simulated: its main-game RTP plus the pools'
    contribution is the figure on the audit's basis, and its σ per spin is the simulation's."""
    figures = {}
    rising = json.loads((math_docs / "rising-joker" / "parsheet.json").read_text())
    figures["rising-joker"] = ParFigures(
        "rising-joker", par_rtp("rising-joker", math_docs), float(rising["sd"]), float(rising["max_win"])
    )
    star = json.loads((math_docs / "stjernestoev" / "parsheet.json").read_text())
    contribution = load_pools().network_for_game("stjernestoev").contribution_ppm / 1_000_000
    simulation = star["simulation"]
    figures["stjernestoev"] = ParFigures(
        "stjernestoev",
        float(simulation["rtp_main"]) + contribution,
        float(simulation["sd_per_spin_x_stake"]),
        float(simulation["max_win_x_stake"]),
    )
    return figures
