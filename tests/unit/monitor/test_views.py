"""What the pages show: the Diamond Mystery share table at a stake, and the ops figures from window values."""

from __future__ import annotations

from games.registry import engine
from services.monitor.adapters.par_sheets import load_par_figures
from services.monitor.core import views
from services.monitor.core.facts import Position, SpinFact
from services.monitor.core.plan import MonitorFold, plan_spin_events
from shared.pools import load_pools

DM = load_pools().network("diamond-mystery")
FIXED = {tier.tier: tier.fixed_hundredths for tier in engine("rising-joker").model.mystery.tiers}


def test_at_one_euro_green_pays_fifty_euro_fixed_and_five_percent_of_its_pool():
    levels = {"dm-green": {"level_minor": 10_000}}
    green = views.share_table(DM, FIXED, levels, 100)[0]
    assert (green["tier"], green["fixed_minor"], green["share_ppm"]) == ("green", 5_000, 50_000)
    assert (green["pool_part_minor"], green["total_minor"]) == (500, 5_500)


def test_from_twenty_euro_a_tier_takes_its_whole_pool():
    rows = views.share_table(DM, FIXED, {"dm-diamond": {"level_minor": 2_500_000}}, 2_000)
    diamond = next(row for row in rows if row["tier"] == "diamond")
    figures = (diamond["share_ppm"], diamond["pool_part_minor"], diamond["fixed_minor"])
    assert figures == (1_000_000, 2_500_000, 10_000_000)
    assert next(row for row in rows if row["tier"] == "green")["pool_part_minor"] is None  # no meter read yet


def test_ops_figures_count_the_last_full_minute_and_rtp_per_game():
    minute0 = 1_764_000_000_000 - 1_764_000_000_000 % 60_000
    facts = [
        SpinFact(
            Position(0, i, minute0 + i * 500, f"e{i}"), "rising-joker", 100, "EUR", "op-1", 90, 0, 90 * 1_000_000, 200
        )
        for i in range(120)
    ]
    fold = MonitorFold()
    fold.apply(plan_spin_events(fold.read, facts, load_par_figures()))
    ops = views.ops_view(fold.tables["cells_1m"], fold.tables["cells_1d"], load_par_figures(), minute0 + 61_000)
    assert ops["spins_per_s"] == 2.0  # 120 spins in the minute before
    assert ops["latency_samples"] == 120
    rtp = ops["rtp_by_game"]["rising-joker"]
    assert abs(rtp["rtp"] - 0.9) < 1e-12 and rtp["rtp_low"] < 0.9 < rtp["rtp_high"]
    assert rtp["ggr_minor"] == 120 * 10
