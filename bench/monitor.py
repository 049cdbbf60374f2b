"""Monitor: its lag behind the platform while spins run at 50/s, and its msg/s on a backlog against the bare loop."""

# Two phases on fresh prefixes. Lag: wallet, jackpot, spin and the monitor run; spins are paced at `rate`/s for
# `seconds`, and the monitor's /api/ops is sampled twice a second (lag in records, and in seconds: how old the newest
# record it read is while records wait); after the load stops, the time until it reads everything. Throughput: a
# backlog of sample traffic on its three topics (settled and rejected spins, contributions, wins, meters), the monitor
# started on it, msg/s from its first to its last record read; the bare consume → decode → validate → encode →
# produce loop (bench/kafka.py) runs on the same record values in the same run. Not part of `bench spins`.

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from bench.kafka import scratch_topics, transform_loop
from bench.spin_load import LoadGenerator
from bench.spin_platform import deposit_commands, spin_requests, start_platform
from bench.synthetic.publish import publish
from bench.synthetic.samples import sample_events
from reelstream.processes import stop_all
from shared.config import load_settings
from shared.events import encode
from shared.kafka import producer
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics
from reelstream.monitor_process import INPUTS, free_port, get_json, start_monitor

SAMPLE_S = 0.5


def _read_total(port: int) -> int:
    body = get_json(port, "/api/ops") or {}
    return sum(body.get("records_read", {}).values())


def throughput(bootstrap: str, spins: int, workdir: Path) -> dict:
    prefix = f"mbench{uuid.uuid4().hex[:8]}."
    ensure_topics(bootstrap, prefix=prefix)
    samples = [s for s in sample_events(spins, datetime.now(timezone.utc), tag="mb") if s.topic in INPUTS]
    publish(bootstrap, samples, lambda topic: prefix + topic)
    port = free_port()
    monitor = start_monitor(bootstrap, prefix, port, workdir)
    try:
        monitor.wait_ready(120)
        first = None
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            read = _read_total(port)
            now = time.monotonic()
            if first is None and read > 0:
                first = (now, read)
            if read >= len(samples):
                break
            time.sleep(0.05)
        assert first is not None and read >= len(samples), f"monitor read {read} of {len(samples)}"
        rate = (read - first[1]) / max(now - first[0], 1e-3)
    finally:
        monitor.stop()
        delete_prefixed(bootstrap, prefix)
    with scratch_topics(bootstrap, 2) as (source, sink):
        writer = producer(bootstrap, client_id="bench-monitor")
        for sample in samples:
            writer.send(source, key=sample.envelope.key, value=encode(sample.envelope))
        writer.flush(60)
        writer.close()
        loop = transform_loop(bootstrap, source, sink, len(samples))
    return {
        "records": len(samples),
        "monitor_msg_per_s": round(rate),
        "bare_loop_msg_per_s": round(loop),
        "monitor_to_bare_loop": round(rate / loop, 3),
    }


async def _sample_lag(port: int, samples: list, stop: asyncio.Event) -> None:
    while not stop.is_set():
        body = await asyncio.to_thread(get_json, port, "/api/ops", 2.0) or {}
        if body:
            samples.append((time.monotonic(), body["monitor_lag_records"], body["monitor_lag_s"]))
        await asyncio.sleep(SAMPLE_S)


async def _lag_phase(bootstrap: str, prefix: str, port: int, rate: float, seconds: float) -> dict:
    settings = load_settings()
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        players = [f"mbench-{n:03d}" for n in range(60)]
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}
        await load.send_all(f"{prefix}wallet.commands", deposit_commands(players))
        await asyncio.sleep(3)
        samples: list = []
        stop = asyncio.Event()
        sampler = asyncio.create_task(_sample_lag(port, samples, stop))
        paced, _due = await load.paced(spin_requests(players, tokens, int(rate * seconds)), rate)
        load_end = time.monotonic()
        caught_up_s = None
        while time.monotonic() - load_end < 30:
            body = await asyncio.to_thread(get_json, port, "/api/ops", 2.0) or {}
            if (
                body.get("monitor_lag_records") == 0
                and body.get("rtp_by_game", {}).get("rising-joker", {}).get("spins", 0) >= paced["answered"]
            ):
                caught_up_s = time.monotonic() - load_end
                break
            await asyncio.sleep(0.1)
        stop.set()
        await sampler
    finally:
        await load.stop()
    during = [s for s in samples if s[0] <= load_end]
    lags_s = sorted(s[2] for s in during) or [0.0]
    return {
        "rate_per_s": rate,
        "seconds": seconds,
        "spins_answered": paced["answered"],
        "spin_latency_p50_ms": paced["p50_ms"],
        "spin_latency_p99_ms": paced["p99_ms"],
        "lag_s_max": round(max(lags_s), 2),
        "lag_s_p50": round(statistics.median(lags_s), 2),
        "lag_records_max": max((s[1] for s in during), default=0),
        "caught_up_after_load_s": None if caught_up_s is None else round(caught_up_s, 2),
    }


def lag(bootstrap: str, rate: float, seconds: float, workdir: Path) -> dict:
    prefix = f"mbench{uuid.uuid4().hex[:8]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = start_platform(bootstrap, prefix, workdir / "platform-logs")
    port = free_port()
    services.append(start_monitor(bootstrap, prefix, port, workdir))
    try:
        services[-1].wait_ready(120)
        return asyncio.run(_lag_phase(bootstrap, prefix, port, rate, seconds))
    finally:
        stop_all(services)
        delete_prefixed(bootstrap, prefix)


def command(
    rate: float = typer.Option(50.0, min=1.0, help="Spins per second during the lag phase."),
    seconds: float = typer.Option(30.0, min=5.0, help="How long the paced load runs."),
    backlog_spins: int = typer.Option(4_000, min=100, help="Sample spins in the throughput backlog."),
    out: Path = typer.Option(Path("bench-results/monitor.json"), help="Where to write the JSON results."),
) -> None:
    """Monitor: lag under paced spins against its targets (docs/monitor.md) and msg/s vs the bare loop."""
    bootstrap = load_settings().kafka_bootstrap_servers
    workdir = Path(tempfile.mkdtemp(prefix="bench-monitor-"))
    results = {
        "lag": lag(bootstrap, rate, seconds, workdir),
        "throughput": throughput(bootstrap, backlog_spins, workdir),
    }
    lagged = results["lag"]
    results["verdict"] = {
        "lag_under_5_s": lagged["lag_s_max"] < 5.0,
        "caught_up_within_10_s": lagged["caught_up_after_load_s"] is not None
        and lagged["caught_up_after_load_s"] <= 10.0,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    table = Table("figure", "value", title="monitor")
    for phase in ("lag", "throughput"):
        for key, value in results[phase].items():
            table.add_row(f"{phase}: {key}", f"{value:,}" if isinstance(value, int) else str(value))
    for key, value in results["verdict"].items():
        table.add_row(key, "yes" if value else "NO")
    Console().print(table)
