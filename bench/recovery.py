"""Recovery as history grows: restart time, tail folded and memory, with and without a snapshot; the audit's rate.
Measured for the wallet, the jackpot and the spin service, and the audit's time against the raw consume rate of the
same records."""

# For each size a synthetic history (`bench/synthetic`, the same number of players at every size) goes to fresh
# prefixed topics, as the services would have written it. Each service then starts with no snapshot (it folds its
# events from offset 0), stops with SIGTERM (which writes each partition's snapshot), and starts again (newest snapshot
# + the tail). `ready_s` is the time from spawn to the ready line, `rss_mb` the resident memory right after it.
# Run it under `flock /tmp/reelstream-bench.lock` (docs/snapshots.md records the figures).

from __future__ import annotations

import json
import re
import tempfile
import time
import uuid
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from reelstream.processes import spawn
from bench import recovery_audit as audits
from shared.config import load_settings
from shared.kafka import admin_client, group_lag, kafka_consumer
from shared.topic_admin import delete_prefixed, ensure_topics

SERVICES = ("wallet", "jackpot", "spin")
QUIET_LIMIT_S = 120.0
# Services whose first instance is stopped only once it has consumed its inputs' backlog (see _start): the spin, the
# one whose inputs another service fills when it starts (the wallet and the jackpot only read their own commands).
WAITS_FOR_INPUTS = ("spin",)
# What each service prints when ready: how many events it folded (the tail after the snapshot, or all of them).
_FOLDED = {
    "wallet": re.compile(r"wallet: restored \d+ partitions \((\d+) from a snapshot, (\d+) events folded\)"),
    "jackpot": re.compile(r"jackpot: restored \d+ partitions \((\d+) from a snapshot, (\d+) events folded\)"),
    "spin": re.compile(r"spin: restored \d+ partitions \((\d+) from a snapshot, (\d+) records folded\)"),
}


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
    # The instance that folded from offset 0 is stopped once it has also consumed what is waiting on its inputs (the
    # spin: the jackpot's answers to the history's claims, forwarded when the jackpot started): its snapshots then
    # reflect everything, and the restart measures the snapshot, not that backlog.
    waits = not snapshot and name in WAITS_FOR_INPUTS
    quiet_s = _caught_up(env["REELSTREAM_TOPIC_PREFIX"], name) if waits else None
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
        **({"caught_up_s": quiet_s} if waits else {}),
    }


def _caught_up(prefix: str, name: str, limit_s: float = QUIET_LIMIT_S) -> float | None:
    """Seconds until the service's group had no record left behind its committed offsets (None: not in limit_s, or
    the group commits none: the wallet's positions travel on its events)."""
    settings = load_settings()
    group = f"{prefix}reelstream-{name}"
    admin = admin_client(settings.kafka_bootstrap_servers, client_id="reelstream-bench-recovery")
    reader = kafka_consumer(settings.kafka_bootstrap_servers, group_id=None, enable_auto_commit=False)
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < limit_s:
            lag = group_lag(admin, reader, group)
            if lag == 0:
                return round(time.perf_counter() - started, 3)
            time.sleep(0.2)  # bounded by limit_s
        return None
    finally:
        reader.close()
        admin.close()


def run_size(
    bootstrap: str,
    spins: int,
    players: int,
    workdir: Path,
    audit: bool,
    services: tuple[str, ...],
    incremental_spins: int | None = None,
) -> dict:
    """One history size: written (with a checkpointing audit at the cut `incremental_spins` before its end, when
    given), each service restarted without and with a snapshot, then the audits."""
    prefix = f"rbench-{uuid.uuid4().hex[:8]}-"
    ensure_topics(bootstrap, prefix=prefix)
    audit_dir, at_cut = workdir / f"{spins}-audit", {}
    try:
        written = audits.write_history(
            bootstrap,
            prefix,
            spins,
            players,
            audits.cuts_before(spins, incremental_spins) if incremental_spins else [],
            audits.checkpoint_at_cut(bootstrap, prefix, audit_dir, at_cut),
        )
        env = {"REELSTREAM_TOPIC_PREFIX": prefix, "REELSTREAM_CRASH_AT": "", "REELSTREAM_LOG_LEVEL": "WARNING"}
        recovery = []
        for name in services:
            for snapshot in (False, True):
                recovery.append(_start(name, env, workdir / f"{spins}-{name}", snapshot, spins))
        figures = audits.full_audit(bootstrap, prefix) if audit else {}
        if incremental_spins:
            figures.update(audits.incremental_audit(bootstrap, prefix, audit_dir, spins, incremental_spins, at_cut))
        return {
            "history": {"spins": spins, "players": players, **written},
            "recovery": recovery,
            "audit": figures or None,
        }
    finally:
        delete_prefixed(bootstrap, prefix)


def command(
    sizes: str = typer.Option("10000,100000", help="History sizes in spins, comma-separated."),
    players: int = typer.Option(200, help="Players at every size (held constant)."),
    audit: bool = typer.Option(
        True,
        help="Also time the full audit and the raw consume rate (at the first size), and the audit since a checkpoint "
        "over the last 10,000 spins (at the last size).",
    ),
    services: str = typer.Option(",".join(SERVICES), help="Services to restart, comma-separated."),
    out: Path = typer.Option(None, help="Write the results as JSON here."),
) -> None:
    """Restart time, tail folded and memory with and without a snapshot, as history grows (wallet, jackpot, spin)."""
    bootstrap = load_settings().kafka_bootstrap_servers
    results = {"recovery": [], "audit": {}, "sizes": []}
    with tempfile.TemporaryDirectory(prefix="reelstream-bench-recovery-") as workdir:
        names = tuple(name for name in services.split(",") if name)
        counts = [int(size) for size in sizes.split(",")]
        for index, spins in enumerate(counts):
            tail = min(audits.INCREMENTAL_SPINS, spins // 2) if audit and index == len(counts) - 1 else None
            size = run_size(bootstrap, spins, players, Path(workdir), audit and index == 0, names, tail)
            results["recovery"] += size["recovery"]
            results["sizes"].append({"history": size["history"], "audit": size["audit"]})
    results["audit"] = audits.summary(results["sizes"])
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
    for line in audits.describe(results["audit"]):
        console.print(line)
