"""A must-drop pool's par sheet against the platform: one pool simulated by shared/pools/parsheet.py and run through
the real jackpot service on the broker; drop levels compared by a two-sample Kolmogorov–Smirnov test, hit frequency
per stake and RTP share side by side. `make mustdrop-parsheet`; results in docs/results/jackpot/."""

# The pool is pools-v2's dm-drop at Mega Drop's contribution rate with a 2 EUR range, so thousands of drops come
# quickly.

from __future__ import annotations

import asyncio
from collections import Counter
import json
import os
import random
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from shared.config import load_settings
from shared.events import decode, decode_all
from shared.events import jackpot as jp
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR
from shared.pools import PoolsConfig
from shared.pools.parsheet import expected_drop_level_minor, ks_two_sample, rtp_share, simulate
from shared.records import stand_in_batch
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, JACKPOT_EVENTS

from bench.drop_pools import MIX, small_pools
from bench.jackpot import contribution_record, run_service

TIMEOUT_S = 600


def _records(pools: PoolsConfig, count: int, rng: random.Random) -> list[tuple[bytes, bytes]]:
    network = pools.network("diamond-mystery")
    now = datetime.now(timezone.utc)
    return [
        contribution_record(
            network, rng.choices(MIX.stakes_minor, MIX.weights)[0], uuid.uuid4(), f"p-{i % 500:04d}", now
        )
        for i in range(count)
    ]


def platform_run(bootstrap: str, pools: PoolsConfig, wagers: int, seed: int) -> dict:
    """Drop levels, wins and wagers per stake as the real service decided them on the broker."""
    from services.jackpot.adapters.history import read_all

    records = _records(pools, wagers, random.Random(seed))
    prefix = f"bench-md-{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    try:
        writer = producer(bootstrap, client_id="bench-mustdrop")
        signed = stand_in_batch([(JACKPOT_COMMANDS, key, value) for key, value in records], "spin")
        for (key, value), headers in zip(records, signed):
            writer.send(prefix + JACKPOT_COMMANDS, key=key, value=value, headers=headers)
        writer.flush(timeout=120)
        writer.close()
        from services.jackpot.core.commitment import DropSecrets

        keeper = DropSecrets(os.urandom(32), os.urandom)
        asyncio.run(run_service(bootstrap, prefix, wagers, 2000, pools=pools, secrets=keeper))
        read = read_all(bootstrap, prefix + JACKPOT_EVENTS)
        events = [event.data for r in read for event in decode_all(r.value, expect_kind="event")]
    finally:
        delete_topics(bootstrap, [prefix + spec.name for spec in ALL_TOPICS])
    stakes = [decode(value, expect_kind="command").data.stake_minor for _, value in records]
    wins = [e for e in events if isinstance(e, jp.JackpotWon) and e.pool_id == "dm-drop"]
    reveals = [e for e in events if isinstance(e, jp.DropRevealed) and e.pool_id == "dm-drop"]
    wins_by_stake: dict[int, int] = {}
    paid_by_stake: dict[int, int] = {}
    for win in wins:
        wins_by_stake[win.stake_minor] = wins_by_stake.get(win.stake_minor, 0) + 1
        paid_by_stake[win.stake_minor] = paid_by_stake.get(win.stake_minor, 0) + win.amount_minor
    # Wagers after the last drop belong to an unfinished cycle: count only those up to the last win.
    last = max((i for i, (_, v) in enumerate(records) if _contribution_id(v) == wins[-1].request_id), default=-1)
    wagers_by_stake: dict[int, int] = {}
    for stake in stakes[: last + 1]:
        wagers_by_stake[stake] = wagers_by_stake.get(stake, 0) + 1
    return {
        "drop_levels_micro": [w.level_before_micro for w in wins],
        "drop_points_minor": [r.drop_value for r in reveals],
        "wins_by_stake": wins_by_stake,
        "paid_by_stake_minor": paid_by_stake,
        "wagers_by_stake": wagers_by_stake,
    }


def _contribution_id(value: bytes) -> uuid.UUID:
    return decode(value, expect_kind="command").data.contribution_id


def compare(wagers: int = 30_000, simulated_drops: int = 20_000, seed: int = 7, out: Path | None = None) -> dict:
    pools = small_pools()
    pool = pools.network("diamond-mystery").pool("dm-drop")
    sheet = simulate(pool, MIX, simulated_drops, random.Random(seed))
    bootstrap = load_settings().kafka_bootstrap_servers
    started = time.perf_counter()
    run = platform_run(bootstrap, pools, wagers, seed + 1)
    elapsed_s = time.perf_counter() - started
    statistic, p_value = ks_two_sample(run["drop_levels_micro"], sheet.drop_levels_micro)
    run_wagers = sum(run["wagers_by_stake"].values())

    def run_share(stake, with_seeds=True):
        seed = 0 if with_seeds else pool.seed_minor
        return rtp_share(run["paid_by_stake_minor"], run["wins_by_stake"], run["wagers_by_stake"], stake, seed)

    per_stake = []
    for stake in MIX.stakes_minor:
        run_n = run["wagers_by_stake"].get(stake, 0)
        per_stake.append(
            {
                "stake_minor": stake,
                "sim_hit_frequency": sheet.hit_frequency(stake),
                "run_hit_frequency": run["wins_by_stake"].get(stake, 0) / run_n if run_n else 0.0,
                "sim_rtp_share_above_seed": sheet.rtp_share(stake, with_seeds=False),
                "run_rtp_share_above_seed": run_share(stake, with_seeds=False),
            }
        )
    levels = run["drop_levels_micro"]
    result = {
        "pool": pool.model_dump(mode="json"),
        "stake_mix": {"stakes_minor": MIX.stakes_minor, "weights": MIX.weights},
        "simulation": {
            "drops": sheet.drops,
            "wagers": sheet.wagers,
            "mean_drop_level_minor": sheet.mean_drop_level_minor(),
            "wagers_per_drop": sheet.wagers / sheet.drops,
            "rtp_share": sheet.rtp_share(),
            "rtp_share_above_seed": sheet.rtp_share(with_seeds=False),
        },
        "approximation_mean_drop_level_minor": expected_drop_level_minor(pool, MIX),
        "platform": {
            "wagers_sent": wagers,
            "drops": len(levels),
            "wagers_in_complete_cycles": run_wagers,
            "mean_drop_level_minor": sum(levels) / len(levels) / MICRO_PER_MINOR,
            "wagers_per_drop": run_wagers / len(levels),
            "rtp_share": run_share(None),
            "rtp_share_above_seed": run_share(None, with_seeds=False),
            "elapsed_s": round(elapsed_s, 1),
        },
        "ks_drop_levels": {"statistic": statistic, "p_value": p_value},
        "ks_drop_points_vs_uniform": _uniform_ks(run["drop_points_minor"], pool),
        "per_stake": per_stake,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n")
    return result


def _uniform_ks(points: list[int], pool) -> dict:
    """One-sample KS of the drawn drop points against the discrete uniform on (seed, ceiling], and their mean."""
    low, high = pool.seed_minor, pool.must_drop.ceiling_minor
    counts = Counter(points)
    n, below, statistic = len(points), 0, 0.0
    for value in range(low + 1, high + 1):
        below += counts.get(value, 0)
        statistic = max(statistic, abs(below / n - (value - low) / (high - low)))
    return {
        "statistic": statistic,
        "n": n,
        "critical_5pct": 1.36 / n**0.5,
        "mean_minor": sum(points) / n,
        "expected_mean_minor": (low + 1 + high) / 2,
    }


def pool_rate(result: dict) -> float:
    return result["pool"]["contribution_ppm"] / 1_000_000


def main() -> None:
    import sys

    result = compare(out=Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results/mustdrop.json"))
    sim, run, ks = result["simulation"], result["platform"], result["ks_drop_levels"]
    print(f"drops: simulated {sim['drops']}, platform {run['drops']} ({run['elapsed_s']} s)")
    print(
        f"mean drop level (EUR): simulated {sim['mean_drop_level_minor'] / 100:.4f}, platform "
        f"{run['mean_drop_level_minor'] / 100:.4f}, "
        f"approximation {result['approximation_mean_drop_level_minor'] / 100:.4f}"
    )
    print(f"wagers per drop: simulated {sim['wagers_per_drop']:.3f}, platform {run['wagers_per_drop']:.3f}")
    print(
        f"RTP share above the seed (the players' contributions; rate {pool_rate(result):.4f}): simulated "
        f"{sim['rtp_share_above_seed']:.5f}, platform {run['rtp_share_above_seed']:.5f}"
    )
    print(f"KS on drop levels: D = {ks['statistic']:.4f}, p = {ks['p_value']:.3f}")
    uniform = result["ks_drop_points_vs_uniform"]
    print(
        f"drop points vs uniform on (seed, ceiling]: KS D = {uniform['statistic']:.4f} (5 % critical "
        f"{uniform['critical_5pct']:.4f}); mean {uniform['mean_minor'] / 100:.4f} EUR, expected "
        f"{uniform['expected_mean_minor'] / 100:.4f}"
    )
    print("stake  hit freq sim / run        RTP share above seed sim / run")
    for row in result["per_stake"]:
        print(
            f"{row['stake_minor']:>5}  {row['sim_hit_frequency']:.5f} / {row['run_hit_frequency']:.5f}    "
            f"{row['sim_rtp_share_above_seed']:.4f} / {row['run_rtp_share_above_seed']:.4f}"
        )
    if run["drops"] < 1000 or ks["p_value"] < 0.01:
        raise SystemExit("the platform run does not match the par sheet (or gave fewer than 1,000 drops)")


if __name__ == "__main__":
    main()
