"""The demo's live view fits an 80×24 terminal with six players and six pools: meters and big wins stay visible."""

from __future__ import annotations

import io

from rich.console import Console

from reelstream.demo.stats import DemoStats
from reelstream.demo.view import live_view


def test_the_live_view_fits_80_by_24_with_meters_and_big_wins():
    stats = DemoStats()
    for index in range(6):
        currency = "EUR" if index < 3 else "DKK"
        stats.add_player(f"demo-player-{index}", "rising-joker" if index < 3 else "stjernestoev", currency, 1_000_000)
        stats.settled(f"demo-player-{index}", 200, 20_000, 1_019_800, 120.0, [])
    for pool, currency, level in [
        ("dm-green", "EUR", 5_012),
        ("dm-blue", "EUR", 50_034),
        ("dm-red", "EUR", 500_100),
        ("dm-diamond", "EUR", 2_500_321),
        ("sn-jackpot", "DKK", 100_045),
        ("sn-supernova", "DKK", 1_000_002),
    ]:
        stats.meter(pool, currency, level)
    console = Console(file=io.StringIO(), width=80, height=24, color_system=None)
    console.print(live_view(stats, 12.0, 60.0))
    lines = console.file.getvalue().rstrip("\n").splitlines()
    text = "\n".join(lines)
    assert len(lines) <= 24, text
    assert all(len(line) <= 80 for line in lines)
    assert "sn-supernova" in text and "10,000.02 DKK" in text and "25,003.21 EUR" in text
    assert "demo-player-5: 100× stake, 200.00 DKK" in text
    assert " minor" not in text
