"""The hot pool: the real jackpot service applying a backlog of packed contribution records as `source_partitions` spin
partitions write them, on one network partition; every must-drop drop checked against a per-spin fold
(`reelstream bench jackpot --pre-aggregated`, docs/cost.md)."""

# The bench pools are bench.drop_pools': pools-v2's Diamond Mystery network (no by-time pool) with dm-drop at
# 20,000 ppm and a ceiling 2 EUR above its 1,000 EUR seed, so a drop comes every few dozen spins. Each spin
# partition commits a transaction every TRANSACTION_S at its share of TARGET_SPINS_PER_S, and the transaction's
# contributions to the network are one packed record; the partitions' records reach the jackpot interleaved.

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from shared import records, signing
from shared.events import decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.events.batch import BATCH_CONTENT_TYPE, MAX_ITEMS, pack
from shared.headers import CONTENT_TYPE
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig, PoolsConfig
from shared.pools.commitment import reveal_matches
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_EVENTS, JACKPOT_INTERNAL

from services.jackpot.core.payout import split_contribution
from bench.drop_pools import MIX, small_pools

TARGET_SPINS_PER_S = 100_000
TRANSACTION_S = 0.05
BREAKAGE_EVERY = 10  # one spin in ten carries a sub-cent remainder (Rising Joker's breakage), the rest none
DROP_POOL = "dm-drop"


@dataclass(frozen=True)
class Spin:
    contribution_id: uuid.UUID
    stake_minor: int
    breakage_micro: int


def bench_pools() -> PoolsConfig:
    return small_pools()


def spins_per_record(source_partitions: int) -> int:
    """A spin partition's transaction at its share of the target rate: its contributions to the network."""
    return max(1, min(MAX_ITEMS, round(TARGET_SPINS_PER_S / source_partitions * TRANSACTION_S)))


def backlog(network: NetworkConfig, spins: int, source_partitions: int, seed: int) -> tuple[list[bytes], list[Spin]]:
    """The packed records in the order the jackpot partition receives them (each partition's transactions in turn),
    and every spin in that same order: what the per-spin fold reads."""
    rng = random.Random(seed)
    per_record = spins_per_record(source_partitions)
    now = datetime.now(timezone.utc)
    queues: list[list[Spin]] = [[] for _ in range(source_partitions)]
    for index in range(spins):
        breakage = rng.randrange(MICRO_PER_MINOR) if index % BREAKAGE_EVERY == 0 else 0
        spin = Spin(
            uuid.UUID(int=rng.getrandbits(128), version=4), rng.choices(MIX.stakes_minor, MIX.weights)[0], breakage
        )
        queues[index % source_partitions].append(spin)
    values, order = [], []
    for start in range(0, max(len(q) for q in queues), per_record):
        for partition, queue in enumerate(queues):
            taken = queue[start : start + per_record]
            if taken:
                values.append(pack([_contribute(network, spin, partition, now) for spin in taken]))
                order.extend(taken)
    return values, order


def _contribute(network: NetworkConfig, spin: Spin, partition: int, now: datetime) -> bytes:
    data = jp.Contribute(
        network_id=network.network_id,
        contribution_id=spin.contribution_id,
        game=network.games[0],
        currency=network.currency,
        stake_minor=spin.stake_minor,
        contribution_micro=network.wager_contribution_micro(spin.stake_minor),
        breakage_micro=spin.breakage_micro,
        player_id=f"p-{partition:02d}-{spin.contribution_id.int % 1000:03d}",
        operator_id="op-a",
    )
    return encode(envelope(data, source="bench", time=now))


def produce(bootstrap: str, topic: str, key: bytes, values: list[bytes]) -> None:
    """Each record as the spin service's loop writes it: the batch content type, signed as its own transaction."""
    headers = [
        (name, BATCH_CONTENT_TYPE.encode() if name == CONTENT_TYPE else content)
        for name, content in records.headers_for("spin")
    ]
    chosen = signing.signer("spin")
    writer = producer(bootstrap, client_id="bench-hotpool")
    for value in values:
        signed = chosen.sign_one(JACKPOT_INTERNAL, key, value, headers) if chosen is not None else headers
        writer.send(topic, key=key, value=value, headers=signed)
    writer.flush(timeout=300)
    writer.close()


def per_spin_drops(network: NetworkConfig, order: list[Spin], reveals: list[Any]) -> list[tuple[uuid.UUID, int]]:
    """(winning contribution, level before its drop) of each revealed cycle by a fold of one spin at a time over the
    drop pool alone: its part of each spin, capped at the ceiling; armed at the revealed drop point; won by the first
    qualifying stake; then the whole level rounded down paid and the level back to the seed."""
    pool = network.pool(DROP_POOL)
    index = [p.pool_id for p in network.pools].index(DROP_POOL)
    ceiling_micro = pool.must_drop.ceiling_minor * MICRO_PER_MINOR
    seed_micro = pool.seed_minor * MICRO_PER_MINOR
    level_micro, drops, parts = seed_micro, [], {}
    points = iter(reveal.drop_value * MICRO_PER_MINOR for reveal in reveals)
    point_micro = next(points, None)
    for spin in order:
        if point_micro is None:
            break
        key = (spin.stake_minor, spin.breakage_micro)
        part = parts.get(key)
        if part is None:
            part = parts[key] = split_contribution(network.pools, *key)[index]
        level_micro = min(level_micro + part, ceiling_micro)
        if level_micro >= point_micro and spin.stake_minor >= pool.must_drop.min_stake_minor:
            drops.append((spin.contribution_id, level_micro))
            paid_micro = level_micro // MICRO_PER_MINOR * MICRO_PER_MINOR
            level_micro = max(level_micro - paid_micro, seed_micro)
            point_micro = next(points, None)
    return drops


def checked_drops(network: NetworkConfig, order: list[Spin], events: list[Any]) -> dict[str, int]:
    """The service's drops of the bench pool, and how many fell on the spin (and level) the per-spin fold names."""
    reveals = [e for e in events if isinstance(e, jp.DropRevealed) and e.pool_id == DROP_POOL]
    wins = {e.claim_id: e for e in events if isinstance(e, jp.JackpotWon) and e.pool_id == DROP_POOL}
    assert [r.cycle for r in reveals] == list(range(len(reveals))), "one reveal per cycle, in order"
    expected = per_spin_drops(network, order, reveals)
    exact = 0
    for reveal, (winner, level_micro) in zip(reveals, expected):
        won = wins.get(reveal.claim_id)
        exact += (
            reveal_matches(reveal.commitment, reveal.drop_value, reveal.salt)
            and reveal.contribution_id == winner
            and reveal.level_micro == level_micro
            and won is not None
            and won.amount_minor == level_micro // MICRO_PER_MINOR
        )
    return {"drops": len(reveals), "drops_exact": exact, "drops_by_fold": len(expected)}


def run(
    bootstrap: str, spins: int, source_partitions: int, batch_max: int, seed: int, run_service: Callable[..., Any]
) -> dict[str, Any]:
    """One run on fresh prefixed topics: the backlog written first, then the real service (`run_service`:
    bench.jackpot's, in-process) timed from its first polled batch to its last commit; the drops read back from
    jackpot.events and checked."""
    from services.jackpot.core.commitment import DropSecrets

    from services.jackpot.adapters.history import read_all

    pools = bench_pools()
    network = pools.network("diamond-mystery")
    values, order = backlog(network, spins, source_partitions, seed)
    prefix = f"bench-hp-{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    try:
        produce(bootstrap, prefix + JACKPOT_INTERNAL, network.network_id.encode(), values)
        cpu_started_s = time.process_time()
        keeper = DropSecrets(os.urandom(32), os.urandom)
        stats = asyncio.run(run_service(bootstrap, prefix, len(values), batch_max, pools=pools, secrets=keeper))
        cpu_s = (
            time.process_time() - cpu_started_s
        )  # the service's own CPU (it runs in this process), whatever the load
        elapsed_s = stats.last_commit_s - stats.first_batch_s
        written = read_all(bootstrap, prefix + JACKPOT_EVENTS)
        events = [event.data for record in written for event in decode_all(record.value, expect_kind="event")]
    finally:
        delete_topics(bootstrap, [prefix + spec.name for spec in ALL_TOPICS])
    return {
        "spins": spins,
        "records": len(values),
        "spins_per_record": spins_per_record(source_partitions),
        "seconds": round(elapsed_s, 3),
        "spins_per_s": round(spins / elapsed_s),
        "cpu_us_per_spin": round(cpu_s / spins * 1e6, 1),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "transactions": stats.batches,
        "events_records": len(written),
        **checked_drops(network, order, events),
    }


# Where a packed backlog's time goes, by stage: the functions whose cumulative time is each stage's.
STAGES = {
    "read: parse the packed record (JSON, depth guard)": ("codec.py", "_parsed"),
    "read: validate each item (pydantic)": ("codec.py", "_validated"),
    "read: provenance (one signature a record)": ("records.py", "provenance"),
    "decide: accept each contribution (dedup, stake, rate, expiry)": ("decide.py", "_fresh"),
    "decide: runs as one ContributionsApplied (build)": ("packed.py", "applied_run"),
    "decide: crossing search (prefix sums)": ("packed.py", "clear_run"),
    "decide: the crossing spin alone and its drop (won, reveal, reseed, commitment)": (
        "decide.py",
        "_apply_contribution",
    ),
    "decide: fold the events (evolve)": ("decide.py", "_emit_all"),
    "write: encode the events": ("codec.py", "encode"),
}


def profile(spins: int, source_partitions: int) -> dict[str, Any]:
    """The backlog decided in-process by the real service's loop step (read, decide, encode; no broker), under
    cProfile: CPU per spin and each stage's cumulative share (stages nest: a drop's events are folded in its own)."""
    import cProfile
    import pstats
    from types import SimpleNamespace

    from services.jackpot.adapters.runner import JackpotConfig, JackpotService
    from services.jackpot.core.commitment import DropSecrets

    pools = bench_pools()
    network = pools.network("diamond-mystery")
    values, _ = backlog(network, spins, source_partitions, seed=0)
    headers = [(n, BATCH_CONTENT_TYPE.encode() if n == CONTENT_TYPE else c) for n, c in records.headers_for("spin")]
    now_ms = int(time.time() * 1000)
    topic = "hp." + JACKPOT_INTERNAL
    polled = [
        SimpleNamespace(topic=topic, partition=0, offset=i, key=network.network_id.encode(), value=v, headers=headers)
        for i, v in enumerate(values)
    ]
    for record in polled:
        record.timestamp = now_ms
    service = JackpotService(JackpotConfig.on_prefix("unused", "hp."), pools, DropSecrets(os.urandom(32), os.urandom))
    states: dict = {}
    service.loop._decide(0, states, polled[:1])  # imports and the first record's setup outside the figure
    profiler = cProfile.Profile()
    started = time.process_time()
    profiler.runcall(lambda: [service.loop._decide(0, states, polled[i : i + 4]) for i in range(1, len(polled), 4)])
    cpu_s = time.process_time() - started
    measured = spins - spins_per_record(source_partitions)  # the first record's spins are not in the figure
    stats = pstats.Stats(profiler).stats
    total = sum(row[2] for row in stats.values())  # every function's own time: the profiled whole
    shares = {}
    for stage, (file, name) in STAGES.items():
        cumulative = sum(row[3] for (path, _, func), row in stats.items() if path.endswith(file) and func == name)
        shares[stage] = round(cumulative / total, 3)
    return {
        "spins": measured,
        "source_partitions": source_partitions,
        "cpu_us_per_spin_profiled": round(cpu_s / measured * 1e6, 1),
        "share_of_cpu": shares,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    import json
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "bench-results/hot-pool-profile.json"
    found = {"runs": [profile(12_000, partitions) for partitions in (6, 60)]}
    with open(out, "w") as file:
        file.write(json.dumps(found, indent=2) + "\n")
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
