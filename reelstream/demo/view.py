"""Rendering of the demo's live terminal view and its closing summary (rich)."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table

from reelstream.demo.stats import DemoStats
from services.monitor.address import monitor_url
from shared.money import format_minor


def live_view(stats: DemoStats, elapsed_s: float, duration_s: float) -> Group:
    """Fits 80×24 with six players and six pools: one headline, players (every amount in its currency), the pool
    meters in two columns, and the last three jackpots or big wins."""
    players = Table(
        "player", "spins", "balance", "won", "last win on stake", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    for view in stats.players.values():
        players.add_row(
            view.player_id,
            str(view.spins),
            format_minor(view.balance_minor or 0, view.currency),
            format_minor(view.won_minor, view.currency),
            view.last,
        )
    meters = Table.grid(padding=(0, 2))
    cells = [
        f"{pool_id:<13}{format_minor(level_minor, currency):>15}"
        for pool_id, (currency, level_minor) in sorted(stats.meters.items())
    ]
    for index in range(0, len(cells), 2):
        meters.add_row(*cells[index : index + 2])
    p50, p99 = stats.latency_percentiles()
    rate = stats.spins / elapsed_s if elapsed_s > 0 else 0.0
    headline = (
        f"{elapsed_s:4.0f}/{duration_s:.0f} s  {stats.spins} spins  {rate:.1f}/s  p50 {p50:.0f} ms  p99 {p99:.0f} ms"
    )
    events = "\n".join((stats.jackpots + stats.big_wins)[-3:]) or "no jackpot or big win yet"
    return Group(
        headline,
        players,
        Panel(meters, title="jackpot meters", box=box.SQUARE),
        Panel(events, title="jackpots and big wins", box=box.SQUARE),
    )


def summary(stats: DemoStats, elapsed_s: float) -> Table:
    table = Table("figure", "value", title="demo summary")
    p50, p99 = stats.latency_percentiles()
    table.add_row("settled spins", str(stats.spins))
    table.add_row("spins per second", f"{stats.spins / elapsed_s:.1f}" if elapsed_s else "0")
    for game, rtp in sorted(stats.rtp_by_game().items()):
        table.add_row(f"observed return, {game}", f"{rtp * 100:.2f} % (a short run: far from the long-run RTP)")
    table.add_row("latency p50 / p99", f"{p50:.0f} ms / {p99:.0f} ms")
    table.add_row("jackpots won", str(len(stats.jackpots)))
    for code, count in sorted(stats.rejections.items()):
        table.add_row(f"rejected {code}", str(count))
    table.add_row("live jackpot meters / ops", f"{monitor_url()}  /  {monitor_url()}ops")
    return table
