"""Recovery as history grows: restart time, tail folded and memory, with and without a snapshot; the audit's rate.

Measured for the wallet, the jackpot and the spin service, and the audit's time against the raw consume rate of the
same records.

For each size a synthetic history (`reelstream/synthetic`, the same number of players at every size) goes to fresh
prefixed topics, as the services would have written it. Each service then starts with no snapshot (it folds its
events from offset 0), stops with SIGTERM (which writes each partition's snapshot), and starts again (newest snapshot
+ the tail). `ready_s` is the time from spawn to the ready line, `rss_mb` the resident memory right after it.
Run it under `flock /tmp/reelstream-bench.lock` (docs/snapshots.md records the figures).
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import uuid
from pathlib import Path

import typer
from kafka import TopicPartition
from rich.console import Console
from rich.table import Table

from reelstream.processes import spawn
from reelstream.synthetic.spins import play_history, stand_in_lookup
from shared import records as record_headers
from shared.config import load_settings
from shared.events import encode
from shared.kafka import consumer, producer
from shared.partitioning import partition_for
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.topics import JACKPOT_EVENTS, NETWORK_PARTITIONS

SERVICES = ("wallet", "jackpot", "spin")
# What each service prints when ready: how many events it folded (the tail after the snapshot, or all of them).
_FOLDED = {
    "wallet": re.compile(r"wallet: restored \d+ partitions \((\d+) from a snapshot, (\d+) events folded\)"),
    "jackpot": re.compile(r"jackpot: restored \d+ partitions \((\d+) from a snapshot, (\d+) events folded\)"),
    "spin": re.compile(r"spin: restored \d+ partitions \((\d+) from a snapshot, (\d+) records folded\)"),
}


def _write_history(bootstrap: str, prefix: str, spins: int, players: int) -> dict:
    started = time.perf_counter()
    history = play_history(seed=spins, players=players, spins_per_player=max(1, spins // players))
    generated_s = time.perf_counter() - started
    kafka = producer(bootstrap, client_id="bench-recovery", linger_ms=20, batch_size=512 * 1024)
    items = [(item.topic, item.envelope.key, encode(item.envelope)) for item in history.emitted]
    signed = record_headers.stand_in_batch(items, "synthetic")  # as their owners sign them (the services verify)
    for item, (topic, key, value), headers in zip(history.emitted, items, signed):
        kafka.send(prefix + topic, key=key, value=value, headers=headers, partition=_partition_of(item))
    kafka.flush(timeout=300)
    kafka.close(timeout=10)
    return {"records": len(history.emitted), "generate_s": generated_s, "write_s": time.perf_counter() - started}


def _partition_of(item) -> int | None:
    """Where the service would have written it: jackpot events on their network's command partition (a pool's events
    are keyed by pool id but live with their network); everything else by its key."""
    if item.topic == JACKPOT_EVENTS:
        return partition_for(item.envelope.data.network_id.encode(), NETWORK_PARTITIONS)
    return None


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _start(name: str, env: dict, log_dir: Path, snapshot: bool, spins: int) -> dict:
    started = time.perf_counter()
    service = spawn(name, env=env, log_dir=log_dir)
    service.wait_ready(1800)
    ready_s = time.perf_counter() - started
    rss_mb = _rss_mb(service.process.pid)
    matches = _FOLDED[name].findall(service.own_log_text())
    service.stop(120)  # SIGTERM: each partition's snapshot is written on the way out
    from_snapshot, folded = (int(n) for n in matches[-1]) if matches else (0, -1)
    return {
        "service": name,
        "history_spins": spins,
        "snapshot": snapshot,
        "ready_s": round(ready_s, 3),
        "tail_records": folded,
        "partitions_from_snapshot": from_snapshot,
        "rss_mb": round(rss_mb, 1),
    }


def _raw_consume_rate(bootstrap: str, prefix: str, topics: list[str]) -> tuple[int, float]:
    """Records read per second by a plain kafka-python consumer over the same topics (no decoding)."""
    reader = consumer(bootstrap, group_id=None, max_poll_records=10_000, fetch_max_bytes=64 * 1024 * 1024)
    try:
        tps = [TopicPartition(prefix + t, p) for t in topics for p in reader.partitions_for_topic(prefix + t) or ()]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        ends = reader.end_offsets(tps)
        started, count = time.perf_counter(), 0
        while any(reader.position(tp) < ends[tp] for tp in tps):
            for batch in reader.poll(timeout_ms=500).values():
                count += len(batch)
        return count, count / max(1e-9, time.perf_counter() - started)
    finally:
        reader.close(autocommit=False)


def _audit(bootstrap: str, prefix: str) -> dict:
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope

    settings = load_settings({"KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix})
    started = time.perf_counter()
    run = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup)
    full_s = time.perf_counter() - started
    records = run.result.counts["records"]
    raw_records, raw_rate = _raw_consume_rate(
        bootstrap, prefix, ["spin.events", "spin.journal", "wallet.events", "jackpot.events"]
    )
    return {
        "full_s": round(full_s, 3),
        "incremental_s": None,  # not built yet (issue #16, incremental audit)
        "records": records,
        "records_per_s": round(records / max(1e-9, full_s)),
        "raw_consume_records": raw_records,
        "raw_consume_records_per_s": round(raw_rate),
        "discrepancies": len(run.discrepancies),
    }


def run_size(bootstrap: str, spins: int, players: int, workdir: Path, audit: bool, services: tuple[str, ...]) -> dict:
    prefix = f"rbench-{uuid.uuid4().hex[:8]}-"
    ensure_topics(bootstrap, prefix=prefix)
    try:
        written = _write_history(bootstrap, prefix, spins, players)
        env = {"REELSTREAM_TOPIC_PREFIX": prefix, "REELSTREAM_CRASH_AT": "", "REELSTREAM_LOG_LEVEL": "WARNING"}
        recovery = []
        for name in services:
            for snapshot in (False, True):
                recovery.append(_start(name, env, workdir / f"{spins}-{name}", snapshot, spins))
        return {
            "history": {"spins": spins, "players": players, **written},
            "recovery": recovery,
            "audit": _audit(bootstrap, prefix) if audit else None,
        }
    finally:
        delete_prefixed(bootstrap, prefix)


def command(
    sizes: str = typer.Option("10000,100000", help="History sizes in spins, comma-separated."),
    players: int = typer.Option(200, help="Players at every size (held constant)."),
    audit: bool = typer.Option(True, help="Also time the full audit and the raw consume rate (at the first size)."),
    services: str = typer.Option(",".join(SERVICES), help="Services to restart, comma-separated."),
    out: Path = typer.Option(None, help="Write the results as JSON here."),
) -> None:
    """Restart time, tail folded and memory with and without a snapshot, as history grows (wallet, jackpot, spin)."""
    bootstrap = load_settings().kafka_bootstrap_servers
    results = {"recovery": [], "audit": {}, "sizes": []}
    with tempfile.TemporaryDirectory(prefix="reelstream-bench-recovery-") as workdir:
        names = tuple(name for name in services.split(",") if name)
        for index, spins in enumerate(int(size) for size in sizes.split(",")):
            size = run_size(bootstrap, spins, players, Path(workdir), audit and index == 0, names)
            results["recovery"] += size["recovery"]
            results["sizes"].append({"history": size["history"], "audit": size["audit"]})
    audits = [size["audit"] for size in results["sizes"] if size["audit"]]
    results["audit"] = audits[0] if audits else {}  # the first size: the incremental target's reference
    _print(results)
    if out:
        out.write_text(json.dumps(results, indent=2) + "\n")


def _print(results: dict) -> None:
    table = Table("service", "history spins", "snapshot", "ready s", "tail records", "RSS MB")
    for row in results["recovery"]:
        table.add_row(
            row["service"],
            f"{row['history_spins']:,}",
            str(row["snapshot"]),
            f"{row['ready_s']:.2f}",
            f"{row['tail_records']:,}",
            f"{row['rss_mb']:.0f}",
        )
    console = Console()
    console.print(table)
    for size in results["sizes"]:
        if size["audit"]:
            a = size["audit"]
            console.print(
                f"audit of {size['history']['spins']:,} spins: {a['full_s']:.1f} s for {a['records']:,} records "
                f"({a['records_per_s']:,}/s; raw consume {a['raw_consume_records_per_s']:,}/s), "
                f"{a['discrepancies']} discrepancies"
            )
