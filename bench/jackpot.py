"""Jackpot aggregator: contributions/s on ONE network partition vs the bare consume→decode→encode→produce loop."""

# Both are measured in the same run on the same records (Stjernestøv contributions, all keyed by one network id, so
# all on one partition): the baseline is bench.kafka's `transform_loop`; the jackpot figure is the real
# service (decode, decide, one ContributionsApplied per ≤1,000 contributions, one Kafka transaction per batch with the
# offsets) run in-process on fresh prefixed topics. Medians of `repeats` runs.

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from shared.config import load_settings
from shared.events import encode, envelope
from shared.events import jackpot as jp
from shared.kafka import producer
from shared.pools import load_pools
from shared.records import stand_in_batch
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS

from bench.kafka import codec_round_trip, scratch_topics, transform_loop

TIMEOUT_S = 300


def contribution_records(count: int) -> list[tuple[bytes, bytes]]:
    network = load_pools().network("stjernestoev")
    now = datetime.now(timezone.utc)
    stakes = (50, 100, 200, 500, 1000, 10_000)
    return [
        contribution_record(
            network, stakes[index % len(stakes)], uuid.UUID(int=index + 1), f"p-{index % 1000:06d}", now
        )
        for index in range(count)
    ]


def contribution_record(
    network, stake_minor: int, contribution_id: uuid.UUID, player_id: str, now: datetime
) -> tuple[bytes, bytes]:
    """(key, value) of one Contribute as the spin service sends it (operator op-a), for benchmarks."""
    data = jp.Contribute(
        network_id=network.network_id,
        contribution_id=contribution_id,
        game=network.games[0],
        currency=network.currency,
        stake_minor=stake_minor,
        contribution_micro=network.wager_contribution_micro(stake_minor),
        player_id=player_id,
        operator_id="op-a",
    )
    message = envelope(data, source="bench", time=now)
    return message.key, encode(message)


def _produce(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]]) -> None:
    writer = producer(bootstrap, client_id="bench-jackpot")
    signed = stand_in_batch([(JACKPOT_COMMANDS, key, value) for key, value in records], "spin")
    for (key, value), headers in zip(records, signed):
        writer.send(topic, key=key, value=value, headers=headers)  # stands in for the spin service
    writer.flush(timeout=120)
    writer.close()


async def run_service(bootstrap: str, prefix: str, count: int, batch_max: int, pools=None, secrets=None):
    """The real service in-process on `prefix`'s topics until it has applied `count` records (pools and drop secrets
    as given, else the deployment's)."""
    from services.jackpot.adapters.runner import JackpotConfig, JackpotService

    config = JackpotConfig.on_prefix(bootstrap, prefix, batch_max=batch_max)
    service = JackpotService(config, pools=pools, secrets=secrets)
    stop = asyncio.Event()
    task = asyncio.create_task(service.run(stop))
    deadline = time.monotonic() + TIMEOUT_S
    while service.stats.records < count:
        if task.done():
            await task  # raises what stopped it
        if time.monotonic() > deadline:
            raise TimeoutError(f"jackpot applied {service.stats.records} of {count} in {TIMEOUT_S} s")
        await asyncio.sleep(0.05)
    stop.set()
    stats = await task
    return stats


def jackpot_run(bootstrap: str, records: list[tuple[bytes, bytes]], batch_max: int) -> dict[str, float]:
    prefix = f"bench-jp-{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    try:
        _produce(bootstrap, prefix + JACKPOT_COMMANDS, records)
        stats = asyncio.run(run_service(bootstrap, prefix, len(records), batch_max))
        elapsed_s = stats.last_commit_s - stats.first_batch_s
        return {"msg_per_s": len(records) / elapsed_s, "batches": stats.batches, "events": stats.events}
    finally:
        delete_topics(bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def baseline_run(bootstrap: str, records: list[tuple[bytes, bytes]]) -> float:
    with scratch_topics(bootstrap, 2) as (source, sink):
        _produce(bootstrap, source, records)
        _produce(bootstrap, sink, records[:1])  # the sink's leader is known before the clock starts
        return transform_loop(bootstrap, source, sink, len(records), codec_round_trip)


def command(
    messages: int = typer.Option(20_000, min=1000, help="Contributions per run."),
    repeats: int = typer.Option(3, min=1, help="Runs per figure (the median is reported)."),
    batch_max: int = typer.Option(2000, min=1, help="Records per polled batch (one transaction)."),
    out: Path = typer.Option(Path("bench-results/jackpot.json"), help="Where to write the JSON results."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
    pre_aggregated: bool = typer.Option(False, help="Packed records as spin partitions write them (bench/hotpool.py)."),
    source_partitions: int = typer.Option(6, min=1, help="With --pre-aggregated: the spin partitions writing."),
    spins: int = typer.Option(120_000, min=1000, help="With --pre-aggregated: spins in the backlog."),
) -> None:
    """Jackpot contributions/s on one network partition, as a ratio against the bare transform loop (same run)."""
    console = Console(highlight=False, width=None if os.isatty(1) else 120)
    bootstrap = bootstrap or load_settings().kafka_bootstrap_servers
    if pre_aggregated:
        _hot_pool(console, bootstrap, spins, source_partitions, repeats, batch_max, out)
        return
    started = time.perf_counter()
    records = contribution_records(messages)
    baseline, service, details = [], [], []
    for _ in range(repeats):  # interleaved, so drift of the machine hits both alike
        baseline.append(baseline_run(bootstrap, records))
        run = jackpot_run(bootstrap, records, batch_max)
        service.append(run["msg_per_s"])
        details.append(run)
    base_median, service_median = statistics.median(baseline), statistics.median(service)
    results = {
        "messages": messages,
        "repeats": repeats,
        "batch_max": batch_max,
        "value_bytes_median": statistics.median(len(value) for _, value in records),
        "baseline_consume_decode_encode_produce": {
            "msg_per_s": round(base_median),
            "runs": [round(r) for r in baseline],
        },
        "jackpot_contributions": {
            "msg_per_s": round(service_median),
            "runs": [round(r) for r in service],
            "batches": [d["batches"] for d in details],
            "events": [d["events"] for d in details],
        },
        "ratio": round(service_median / base_median, 3),
        "target_ratio": 0.5,
        "machine": _machine(bootstrap, started),
    }
    table = Table("measure (one partition)", "msg/s (median)", "runs")
    table.add_row(
        "consume → decode → validate → encode → produce",
        f"{round(base_median):,}",
        ", ".join(f"{round(r):,}" for r in baseline),
    )
    table.add_row(
        "jackpot service: contributions applied",
        f"{round(service_median):,}",
        ", ".join(f"{round(r):,}" for r in service),
    )
    console.print(table)
    console.print(
        f"ratio {results['ratio']} (target ≥ 0.5); {messages:,} contributions "
        f"of {results['value_bytes_median']} bytes, "
        f"{repeats} runs each, {results['machine']['seconds']} s",
        markup=False,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


def _hot_pool(
    console: Console, bootstrap: str, spins: int, source_partitions: int, repeats: int, batch_max: int, out: Path
) -> None:
    """The hot pool's figure: the median of `repeats` runs of bench/hotpool.py, each run's drops checked."""
    from bench import hotpool

    started = time.perf_counter()
    runs = [hotpool.run(bootstrap, spins, source_partitions, batch_max, seed, run_service) for seed in range(repeats)]
    median = sorted(runs, key=lambda run: run["spins_per_s"])[len(runs) // 2]
    results = {
        "spins_per_s": median["spins_per_s"],
        "source_partitions": source_partitions,
        "drops": median["drops"],
        "drops_exact": median["drops_exact"],
        "target_spins_per_s": hotpool.TARGET_SPINS_PER_S,
        "pools": "bench.drop_pools.small_pools: pools-v2 diamond-mystery, dm-drop 20,000 ppm, range 1,000-1,002 EUR",
        "runs": runs,
        "batch_max": batch_max,
        "machine": _machine(bootstrap, started),
    }
    for run in runs:
        console.print(
            f"{source_partitions} source partitions: {run['spins_per_s']:,} spins/s over {run['spins']:,} spins in "
            f"{run['records']:,} records; {run['drops_exact']:,} of {run['drops']:,} drops exact",
            markup=False,
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


def _machine(bootstrap: str, started: float) -> dict:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "broker": bootstrap,
        "seconds": round(time.perf_counter() - started, 1),
    }
