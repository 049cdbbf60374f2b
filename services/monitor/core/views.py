"""What the pages show, from table values (pure): networks with their pools, the share table of a stake, the ops
figures (spins/s, latency percentiles, RTP per game against its band)."""

from __future__ import annotations

from collections import defaultdict

from shared.pools.payout import payout_minor, share_ppm
from services.monitor.core import latency
from services.monitor.core.facts import split_cell
from services.monitor.core.fold import empty_stats, merge_stats
from services.monitor.core.par import ParFigures
from services.monitor.core.rtp import summary
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig


def networks_view(networks: tuple[NetworkConfig, ...], levels: dict[str, dict], wins: dict[str, dict]) -> list[dict]:
    out = []
    for network in networks:
        pools = []
        for pool in network.pools:
            level = levels.get(pool.pool_id) or {}
            pools.append(
                {
                    "pool_id": pool.pool_id,
                    "name": pool.name,
                    "tier": pool.tier,
                    "currency": network.currency,
                    "seed_minor": pool.seed_minor,
                    "level_minor": level.get("level_minor"),
                    "as_of_ms": level.get("as_of_ms"),
                }
            )
        out.append(
            {
                "network_id": network.network_id,
                "name": network.name,
                "currency": network.currency,
                "games": list(network.games),
                "pools": pools,
                "wins": (wins.get(network.network_id) or {}).get("wins", []),
            }
        )
    return out


def share_table(
    network: NetworkConfig, fixed_hundredths: dict[str, int], levels: dict[str, dict], stake_minor: int
) -> list[dict]:
    """Per tier at this stake: the fixed prize, the share of the pool and what that share of the level pays now."""
    rows = []
    for pool in network.pools:
        level_minor = (levels.get(pool.pool_id) or {}).get("level_minor")
        pool_part = (
            None if level_minor is None else payout_minor(pool.payout, level_minor * MICRO_PER_MINOR, stake_minor)
        )
        fixed = fixed_hundredths.get(pool.tier, 0) * stake_minor // 100
        rows.append(
            {
                "tier": pool.tier,
                "name": pool.name,
                "fixed_minor": fixed,
                "share_ppm": share_ppm(pool.payout, stake_minor),
                "pool_part_minor": pool_part,
                "total_minor": None if pool_part is None else fixed + pool_part,
            }
        )
    return rows


def recent_windows(windows: dict, now_ms: int, span_ms: int) -> dict[str, list[tuple[int, dict]]]:
    """Window values by cell whose window started within `span_ms` before `now_ms`, oldest first."""
    by_cell: dict[str, list] = defaultdict(list)
    for (cell, start_ms), value in windows.items():
        if now_ms - span_ms <= start_ms <= now_ms:
            by_cell[cell].append((start_ms, value))
    return {cell: sorted(items, key=lambda item: item[0]) for cell, items in by_cell.items()}


def ops_view(minutes: dict, days: dict, pars: dict[str, ParFigures], now_ms: int) -> dict:
    """Spins/s over the last full minute, latency p50/p99 over the last 5 minutes, and RTP per game today."""
    last_minute = now_ms - now_ms % 60_000 - 60_000
    recent = empty_stats()
    by_minute: dict[int, int] = defaultdict(int)
    for (cell, start_ms), value in minutes.items():
        by_minute[start_ms] += value["spins"]
        if start_ms >= last_minute - 4 * 60_000:
            merge_stats(recent, value)
    per_game: dict[str, dict] = {}
    for (cell, _start), value in days.items():
        game = split_cell(cell)["game"]
        merge_stats(per_game.setdefault(game, empty_stats()), value)
    return {
        "spins_per_s": by_minute.get(last_minute, 0) / 60,
        "spins_per_minute": sorted(by_minute.items())[-60:],
        "latency_p50_ms": latency.percentile_ms(recent["latency"], 0.5),
        "latency_p99_ms": latency.percentile_ms(recent["latency"], 0.99),
        "latency_samples": sum(recent["latency"].values()),
        "rtp_by_game": {game: summary(stats, None, pars.get(game)) for game, stats in sorted(per_game.items())},
    }


def cells_view(windows: dict, pars: dict[str, ParFigures]) -> list[dict]:
    """Every cell's figures in the given windows, newest window first."""
    rows = []
    for (cell, start_ms), value in sorted(windows.items(), key=lambda item: -item[0][1]):
        parts = split_cell(cell)
        rows.append(
            {**parts, "window_start_ms": start_ms, **summary(value, parts["stake_minor"], pars.get(parts["game"]))}
        )
    return rows
