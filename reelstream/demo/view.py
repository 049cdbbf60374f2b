"""Rendering of the demo's live terminal view and its closing summary (rich)."""
from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table

from reelstream.demo.stats import DemoStats
from services.monitor.address import monitor_url
from shared.money import format_minor


def live_view(stats: DemoStats, elapsed_s: float, duration_s: float) -> Group:
    players = Table("player", "game", "spins", "staked", "won", "balance", "last", title="players")
    for view in stats.players.values():
        players.add_row(
            view.player_id,
            view.game,
            str(view.spins),
            format_minor(view.staked_minor, view.currency),
            format_minor(view.won_minor, view.currency),
            format_minor(view.balance_minor or 0, view.currency),
            view.last,
        )
    meters = Table("pool", "level", title="jackpot meters (live from jackpot.meters)")
    for pool_id, (currency, level_minor) in sorted(stats.meters.items()):
        meters.add_row(pool_id, format_minor(level_minor, currency))
    p50, p99 = stats.latency_percentiles()
    rate = stats.spins / elapsed_s if elapsed_s > 0 else 0.0
    headline = (
        f"{elapsed_s:5.1f} / {duration_s:.0f} s   settled spins {stats.spins}   {rate:.1f} spins/s   "
        f"latency p50 {p50:.0f} ms  p99 {p99:.0f} ms"
    )
    events = "\n".join((stats.jackpots + stats.big_wins)[-6:]) or "no jackpot or big win yet"
    return Group(Panel(headline, title="reelstream demo"), players, meters, Panel(events, title="jackpots and big wins"))


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
