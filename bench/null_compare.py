"""`reelstream bench spins --null-sagas`: the real spin saga against its null baselines N6 and N3 in one run,
interleaved; their handlers only decode, encode and forward (bench/null_saga.py). Burst spins/s, p50/p99 at fixed
loads, records and markers per spin, hops."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from kafka import TopicPartition
from rich.console import Console
from rich.table import Table

from bench import idle as bench_idle
from bench import loop_timings, topic_bytes
from bench import spin_platform as bench_spins
from bench.kafka import percentiles_ms
from bench.null_saga import CHAINS, counted_by_topic
from bench.stall_log import stalls_in
from bench.null_services import ROLES, process_name
from bench.spin_load import LoadGenerator
from reelstream.processes import ServiceProcess, spawn, stop_all
from shared.config import load_settings
from shared.kafka import (
    busy_fetch_options,
    kafka_consumer,
    platform_topics_compressed,
    quiet_fetch_options,
    service_fetch_options,
)
from shared.records import stand_in_batch
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics, prefixed_topics

log = logging.getLogger(__name__)
SAGAS = ("real", "null6", "null3")
SHAPE_OF = {"null6": "n6", "null3": "n3"}
WARM_UP_SPINS = 200
LOG_DIR = Path("bench-results/spins-logs")
READ_TIMEOUT_S = 120


@dataclass
class Saga:
    name: str
    prefix: str
    chain: tuple
    processes: list[ServiceProcess] = field(default_factory=list)
    load: LoadGenerator | None = None
    sent: list[uuid.UUID] = field(default_factory=list)  # every request id sent to this saga


@dataclass
class Phase:
    """One saga's share of a fixed-load phase, summed over its interleaved rounds."""

    requests: int = 0
    due_wall: dict = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    windows: list[tuple[float, float]] = field(default_factory=list)  # the rounds' wall times, for the stall logs
    loop: dict[str, dict] = field(default_factory=dict)  # per process role: its loop histograms' growth (loop_timings)


def _spawn_null(bootstrap: str, prefix: str, shape: str) -> list[ServiceProcess]:
    """A null saga's three processes, started (the caller waits for them to be ready)."""
    env = {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_LOG_LEVEL": "WARNING"}
    return [
        spawn(
            process_name(role, shape),
            env=env,
            log_dir=LOG_DIR,
            argv=("-m", "bench.null_services", role, shape),
        )
        for role in ROLES
    ]


def run(
    bootstrap: str,
    spins: int,
    players_count: int,
    rates: tuple[float, ...],
    load_spins: int,
    rounds: int,
    broker_pid: int | None = None,
    idle_seconds: float = 0,
) -> dict:
    """Start the real platform and both null sagas on fresh uuid prefixes, measure them interleaved, clean up. With
    `idle_seconds`, first the real platform alone without spins, before the null sagas start."""
    run_id = uuid.uuid4().hex[:10]
    sagas = [
        Saga("real", f"bench{run_id}.", bench_spins.CHAIN),
        Saga("null6", f"bench{run_id}n6.", CHAINS["n6"]),
        Saga("null3", f"bench{run_id}n3.", CHAINS["n3"]),
    ]
    try:
        for saga in sagas:
            ensure_topics(bootstrap, prefix=saga.prefix)
        idle = {}
        if idle_seconds:  # the null sagas' processes would idle beside it, and their fetches on the same broker
            sagas[0].processes = bench_spins.start_platform(bootstrap, sagas[0].prefix, LOG_DIR)
            pids = {name: pid for name, pid in _pids(sagas[0], broker_pid).items() if name != "load generator"}
            idle = {"idle": bench_idle.measure(pids, idle_seconds)}
        for saga in sagas[1:]:  # they start while the real platform does
            saga.processes = _spawn_null(bootstrap, saga.prefix, SHAPE_OF[saga.name])
        if not idle_seconds:
            sagas[0].processes = bench_spins.start_platform(bootstrap, sagas[0].prefix, LOG_DIR)
        for process in (process for saga in sagas[1:] for process in saga.processes):
            process.wait_ready(180)
        measured = asyncio.run(_measure(bootstrap, sagas, spins, players_count, rates, load_spins, rounds, broker_pid))
        return {"null_sagas": True, "prefixes": {saga.name: saga.prefix for saga in sagas}, **idle, **measured}
    finally:
        stop_all(process for saga in sagas for process in saga.processes)
        for saga in sagas:
            delete_prefixed(bootstrap, saga.prefix)


def _pids(saga: Saga, broker_pid: int | None) -> dict[str, int]:
    """The saga's processes (by role), the broker and this load generator: whose CPU a spin costs."""
    pids = bench_spins.cpu_sources(saga.processes, broker_pid)
    return {_role(name): pid for name, pid in pids.items()}


def _role(process_name: str) -> str:
    """`spin` of `null-n6-spin` (a null saga's process) and of `spin` (the real one's)."""
    return process_name.rsplit("-", 1)[-1]


async def _measure(
    bootstrap: str,
    sagas: list[Saga],
    spins: int,
    players_count: int,
    rates: tuple[float, ...],
    load_spins: int,
    rounds: int,
    broker_pid: int | None,
) -> dict:
    settings = load_settings()
    players = [f"bench-{n:04d}" for n in range(players_count)]
    expires_ms = time.time_ns() // 1_000_000 + 3_600_000
    tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}

    def batch(saga: Saga, count: int) -> list:
        built = bench_spins.spin_requests(players, tokens, count)
        saga.sent.extend(rid for rid, _, _ in built)
        return built

    for saga in sagas:
        saga.load = LoadGenerator(bootstrap, f"{saga.prefix}spin.requests", f"{saga.prefix}spin.events")
        await saga.load.start()
    try:
        deposits = bench_spins.deposit_commands(players)  # the real wallet needs money; the null wallet keeps none
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await sagas[0].load.send_all(f"{sagas[0].prefix}wallet.commands", deposits, signed)
        await asyncio.sleep(3)  # the deposits are processed long before the first debit (same partitions, in order)
        for saga in sagas:
            _alive(saga)
            await saga.load.burst(batch(saga, WARM_UP_SPINS), timeout_s=60)
        bursts = {saga.name: await _burst(saga, batch(saga, spins), broker_pid) for saga in sagas}
        loads, low = [], min(rates)
        records, hops = {}, {}
        records_by_load, bytes_by_load = [], []
        real = sagas[0]
        for rate in rates:
            starts = {saga.name: end_offsets(bootstrap, saga.prefix) for saga in sagas}
            sizes_before = topic_bytes.log_sizes(bootstrap, real.prefix)
            phases = await _interleaved(sagas, batch, rate, max(1, load_spins // rounds), rounds, broker_pid)
            sizes_after = topic_bytes.log_sizes(bootstrap, real.prefix)
            loads.append(load_row(rate, {saga.name: _phase_figures(saga, phases[saga.name]) for saga in sagas}))
            settled = loads[-1]["by_saga"][real.name]["settled"]
            counted = per_spin(count_records(bootstrap, real.prefix, starts[real.name]), settled)
            records_by_load.append({"spins_per_s": rate, "settled": settled, **counted})
            added = topic_bytes.bytes_per_spin(sizes_before, sizes_after, real.prefix, settled)
            bytes_by_load.append({"spins_per_s": rate, "settled": settled, **added})
            for saga in sagas if rate == low else ():
                settled = loads[-1]["by_saga"][saga.name]["settled"]
                records[saga.name] = (
                    counted
                    if saga is real
                    else per_spin(count_records(bootstrap, saga.prefix, starts[saga.name]), settled)
                )
                hops[saga.name] = _hops(bootstrap, saga, phases[saga.name])
        return {
            "burst": {name: burst["spins_per_s"] for name, burst in bursts.items()},
            "burst_detail": bursts,
            "loads": loads,
            "records_per_spin": {**records["real"], "at_spins_per_s": low, "by_saga": records},
            # The real saga's records and bytes at every load (bench/topic_bytes.py says what the bytes include).
            "records_per_spin_by_load": records_by_load,
            "bytes_per_spin_by_load": bytes_by_load,
            "hops": {"at_spins_per_s": low, **hops},
            "ratios": ratios(bursts, loads),
            "answers": {saga.name: answers_per_request(bootstrap, saga.prefix, saga.sent) for saga in sagas},
        }
    finally:
        for saga in sagas:
            await _stopped(saga.load)


async def _stopped(load: LoadGenerator) -> None:
    """Stop a load generator; a fetch of its reader that the broker timed out and aiokafka cancels while it closes
    (a loaded broker) costs the run nothing, its figures are taken. A cancellation of this task itself propagates."""
    try:
        await load.stop()
    except asyncio.CancelledError:
        if asyncio.current_task().cancelling():
            raise
        log.warning("a load generator's reader was cancelled while it stopped; its figures were already read")


async def _burst(saga: Saga, batch: list, broker_pid: int | None) -> dict:
    """Every request at once: settled spins/s until the last answer, and CPU ms per settled spin by process."""
    _alive(saga)
    pids = _pids(saga, broker_pid)
    cpu_before = {name: bench_spins.cpu_s(pid) for name, pid in pids.items()}
    burst = await saga.load.burst(batch)
    burst["cpu_ms_per_spin"] = bench_spins.cpu_per_spin(pids, cpu_before, burst["settled"])
    return burst


async def _interleaved(
    sagas: list[Saga], batch, rate: float, per_round: int, rounds: int, broker_pid: int | None
) -> dict[str, Phase]:
    """One fixed load: each saga in turn, `rounds` times, every other round in reverse order."""
    phases = {saga.name: Phase() for saga in sagas}
    for turn in range(rounds):
        for saga in sagas if turn % 2 == 0 else sagas[::-1]:
            await _paced_round(saga, phases[saga.name], batch(saga, per_round), rate, broker_pid)
    return phases


def _alive(saga: Saga) -> None:
    """A saga whose process died answers nothing more: stop at once with its log, not after the answer timeouts."""
    for process in saga.processes:
        if process.process.poll() is not None:
            tail = process.own_log_text()[-3000:]
            raise RuntimeError(f"{saga.name}: {process.name} exited with {process.process.returncode}:\n{tail}")


async def _paced_round(saga: Saga, phase: Phase, batch: list, rate: float, broker_pid: int | None) -> None:
    _alive(saga)
    pids = _pids(saga, broker_pid)
    urls = _metrics_urls(saga)
    before = {name: bench_spins.cpu_s(pid) for name, pid in pids.items()}
    timings = {role: loop_timings.scrape(url) for role, url in urls.items()}
    started, started_wall = time.perf_counter(), time.time()
    _, due_wall = await saga.load.paced(batch, rate)
    phase.seconds += time.perf_counter() - started
    phase.windows.append((started_wall, time.time()))
    for name, pid in pids.items():
        phase.cpu_s[name] = phase.cpu_s.get(name, 0.0) + bench_spins.cpu_s(pid) - before[name]
    for role, url in urls.items():
        more = loop_timings.grown(timings[role], loop_timings.scrape(url))
        phase.loop[role] = loop_timings.added(phase.loop.get(role, {}), more)
    phase.requests += len(batch)
    phase.due_wall.update(due_wall)


def _metrics_urls(saga: Saga) -> dict[str, str]:
    """The /metrics address of each of the saga's service processes, by role."""
    by_pid = loop_timings.urls_by_pid(process.process.pid for process in saga.processes)
    return {_role(p.name): by_pid[p.process.pid] for p in saga.processes if p.process.pid in by_pid}


def _phase_figures(saga: Saga, phase: Phase) -> dict:
    """Latency of the settled spins (answer read − due instant), answers and rejections, CPU per settled spin."""
    answers = saga.load.answers
    ids = list(phase.due_wall)
    took = [
        answers.wall[rid] - phase.due_wall[rid] for rid in ids if rid in answers.wall and rid not in answers.refused
    ]
    tally = answers.tally(ids)
    settled, quarter = max(1, tally["settled"]), max(1, len(took) // 4)
    return {
        "requests": phase.requests,
        "answered": sum(1 for rid in ids if rid in answers.at),
        **tally,
        **(percentiles_ms(took) if took else {"p50_ms": None, "p99_ms": None, "max_ms": None}),
        # Rounds in order: a queue that builds up (beyond capacity) shows as a last quarter far above the first.
        "first_quarter_p50_ms": percentiles_ms(took[:quarter])["p50_ms"] if took else None,
        "last_quarter_p50_ms": percentiles_ms(took[-quarter:])["p50_ms"] if took else None,
        "cpu_ms_per_spin": {name: round(cpu * 1000 / settled, 2) for name, cpu in phase.cpu_s.items()},
        "cpu_cores": round(sum(phase.cpu_s.values()) / max(phase.seconds, 1e-9), 2),
        # Event loop stalls of each process during the phase (shared/observability/stalls.py), read from its log.
        "stalls": {_role(process.name): stalls_in(process.own_log_text(), phase.windows) for process in saga.processes},
        # Each process's loop during the phase: deciding a batch, its transaction, the batch from poll to commit.
        "loop": {role: loop_timings.summary(histograms) for role, histograms in phase.loop.items()},
    }


def load_row(rate: float, by_saga: dict[str, dict]) -> dict:
    """One fixed load: the p50/p99 of every saga side by side (the JSON's `loads` rows), the details under by_saga."""
    row: dict = {"spins_per_s": rate}
    for name, figures in by_saga.items():
        row[f"{name}_p50_ms"], row[f"{name}_p99_ms"] = figures["p50_ms"], figures["p99_ms"]
    row["by_saga"] = by_saga
    return row


def _quotient(top: float | None, bottom: float | None) -> float | None:
    return round(top / bottom, 3) if top is not None and bottom else None


def ratios(bursts: dict[str, dict], loads: list[dict]) -> dict:
    """The issue's comparisons: real against N6 (the target: p99 ≤ 0.6 ×, burst ≥ 1.0 ×) and against N3 (the
    remaining overhead of the logic, goal ≤ 1.5 ×)."""
    burst = {name: figures["spins_per_s"] for name, figures in bursts.items()}
    return {
        "burst_real_over_null6": _quotient(burst["real"], burst["null6"]),
        "burst_real_over_null3": _quotient(burst["real"], burst["null3"]),
        "p99_real_over_null6": {
            row["spins_per_s"]: _quotient(row["real_p99_ms"], row["null6_p99_ms"]) for row in loads
        },
        "p99_real_over_null3": {
            row["spins_per_s"]: _quotient(row["real_p99_ms"], row["null3_p99_ms"]) for row in loads
        },
    }


def end_offsets(bootstrap: str, prefix: str) -> dict[TopicPartition, int]:
    """The end offset of every partition of every topic under the prefix."""
    names = prefixed_topics(bootstrap, prefix)
    reader = kafka_consumer(bootstrap, group_id=None)
    try:
        tps = [TopicPartition(name, p) for name in names for p in reader.partitions_for_topic(name) or ()]
        return dict(reader.end_offsets(tps))
    finally:
        reader.close()


def count_records(bootstrap: str, prefix: str, start: dict[TopicPartition, int]) -> dict[str, Any]:
    """Data records and transaction markers appended under the prefix since `start`, in all and by topic (without the
    prefix): the records a read_committed read of [start, end) returns are the data; the offsets it skips are the
    markers (and any aborted data)."""
    end = end_offsets(bootstrap, prefix)
    wanted = {tp: offset for tp, offset in end.items() if offset > start.get(tp, 0)}
    read = {tp: 0 for tp in wanted}
    reader = bench_spins.committed_reader(bootstrap)
    try:
        reader.assign(list(wanted))
        for tp in wanted:
            reader.seek(tp, start.get(tp, 0))
        deadline = time.monotonic() + READ_TIMEOUT_S
        while any(reader.position(tp) < wanted[tp] for tp in wanted):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{prefix}: records not read back within {READ_TIMEOUT_S} s")
            for tp, got in reader.poll(timeout_ms=200, max_records=5000).items():
                read[tp] += sum(1 for record in got if record.offset < wanted[tp])
    finally:
        reader.close(autocommit=False)
    return counted_by_topic(start, end, read, prefix)


def answers_per_request(bootstrap: str, prefix: str, sent: list[uuid.UUID]) -> dict[str, int]:
    """How many of the sent requests have exactly one distinct answer on spin.events (read_committed, whole topic),
    more than one, or none: a saga that loses or doubles answers is no baseline."""
    reader = bench_spins.committed_reader(bootstrap)
    answers: dict[str, set[str]] = {}
    try:
        topic = f"{prefix}spin.events"
        tps = [TopicPartition(topic, p) for p in reader.partitions_for_topic(topic) or ()]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        end = reader.end_offsets(tps)
        deadline = time.monotonic() + READ_TIMEOUT_S
        while any(reader.position(tp) < end[tp] for tp in tps) and time.monotonic() < deadline:
            for got in reader.poll(timeout_ms=200, max_records=5000).values():
                for record in got:
                    raw = orjson.loads(record.value)
                    request_id = (raw.get("data") or {}).get("request_id")
                    answers.setdefault(request_id, set()).add(raw.get("id"))
    finally:
        reader.close(autocommit=False)
    counts = [len(answers.get(str(rid), ())) for rid in sent]
    return {
        "requests": len(sent),
        "once": counts.count(1),
        "more": sum(1 for n in counts if n > 1),
        "none": counts.count(0),
    }


def per_spin(count: dict[str, Any], spins: int) -> dict[str, Any]:
    """Data records and markers a settled spin (rounded to 0.01), in all and, when counted, by topic."""

    def rounded(figures: dict[str, int]) -> dict[str, float]:
        return {kind: round(figures[kind] / max(1, spins), 2) for kind in ("data", "markers")}

    topics = {topic: rounded(figures) for topic, figures in count.get("by_topic", {}).items()}
    return {**rounded(count), **({"by_topic": topics} if topics else {})}


def _hops(bootstrap: str, saga: Saga, phase: Phase) -> list[dict]:
    wanted = {str(rid) for rid in phase.due_wall}
    found = bench_spins.chain_times(bootstrap, saga.prefix, wanted, chain=saga.chain)
    wall = saga.load.answers.wall
    due = {str(rid): at for rid, at in phase.due_wall.items()}
    answered = {str(rid): wall[rid] for rid in phase.due_wall if rid in wall}
    return bench_spins.hop_breakdown(found, due, answered, chain=saga.chain)


def print_results(console: Console, results: dict) -> None:
    if "idle" in results:
        idle = results["idle"]
        by_process = ", ".join(f"{name} {percent}" for name, percent in idle["by_process"].items())
        console.print(
            f"idle, no spins, {idle['seconds']} s: {idle['idle_core_percent']} % of a core ({by_process}); "
            f"load average {idle['load_1min_before']} → {idle['load_1min_after']}",
            markup=False,
        )
    burst = Table("saga", "burst spins/s", "settled / requests", "CPU ms per spin (by process)")
    for name, figures in results["burst_detail"].items():
        cpu = " / ".join(f"{role} {ms}" for role, ms in figures["cpu_ms_per_spin"].items())
        burst.add_row(name, str(figures["spins_per_s"]), f"{figures['settled']} / {figures['requests']}", cpu)
    console.print(burst)
    loads = Table("spins/s", *(f"{name} p50 / p99 ms" for name in SAGAS), "p99 real ÷ N6", "p99 real ÷ N3", "cores")
    for row in results["loads"]:
        rate = row["spins_per_s"]
        cells = [f"{row[f'{name}_p50_ms']} / {row[f'{name}_p99_ms']}" for name in SAGAS]
        cores = " / ".join(str(row["by_saga"][name]["cpu_cores"]) for name in SAGAS)
        ratio = results["ratios"]
        loads.add_row(
            str(rate), *cells, str(ratio["p99_real_over_null6"][rate]), str(ratio["p99_real_over_null3"][rate]), cores
        )
    console.print(loads)
    stalls = Table("event loop stalls ≥ 100 ms: count / total ms (ms by cause), longest site", *SAGAS)
    for row in results["loads"]:
        for role in ROLES:
            cells = [_stall_cell(row["by_saga"][name]["stalls"].get(role)) for name in SAGAS]
            stalls.add_row(f"{row['spins_per_s']} spins/s, {role}", *cells)
    console.print(stalls)
    loop = Table("loop: decide p50 / p99 · transaction p50 / p99 · poll → commit p50 / p99 (ms)", *SAGAS)
    for row in results["loads"]:
        for role in ROLES:
            cells = [_loop_cell(row["by_saga"][name].get("loop", {}).get(role)) for name in SAGAS]
            loop.add_row(f"{row['spins_per_s']} spins/s, {role}", *cells)
    console.print(loop)
    counts = results["records_per_spin"]
    records = Table(f"records per settled spin at {counts['at_spins_per_s']} spins/s", "data", "commit markers")
    for name, figures in counts["by_saga"].items():
        records.add_row(name, str(figures["data"]), str(figures["markers"]))
    console.print(records)
    topics = sorted({topic for figures in counts["by_saga"].values() for topic in figures.get("by_topic", {})})
    by_topic = Table("data / markers per settled spin, by topic", *counts["by_saga"])
    for topic in topics:
        cells = [counts["by_saga"][name].get("by_topic", {}).get(topic) for name in counts["by_saga"]]
        by_topic.add_row(topic, *(f"{c['data']} / {c['markers']}" if c else "-" for c in cells))
    console.print(by_topic)
    _print_bytes(console, results)
    answers = Table("answers per request (spin.events, read_committed)", "requests", "one", "more", "none")
    for name, figures in results["answers"].items():
        answers.add_row(name, *(str(figures[key]) for key in ("requests", "once", "more", "none")))
    console.print(answers)
    for name in SAGAS:
        hops = Table(f"{name}: hop at {results['hops']['at_spins_per_s']} spins/s", "n", "p50 ms", "p99 ms")
        for hop in results["hops"][name]:
            hops.add_row(hop["hop"], str(hop["samples"]), str(hop["p50_ms"]), str(hop["p99_ms"]))
        console.print(hops)


def _print_bytes(console: Console, results: dict) -> None:
    """The real saga's records and bytes a settled spin at each load, in all and by topic."""
    rows = results.get("bytes_per_spin_by_load", [])
    records = {row["spins_per_s"]: row for row in results.get("records_per_spin_by_load", [])}
    if not rows:
        return
    rates = [row["spins_per_s"] for row in rows]
    table = Table("real saga, a settled spin", *(f"{rate} spins/s: data / markers · bytes" for rate in rates))
    for bucket in ("kept_forever", "platform", "snapshots", "broker_topics"):
        table.add_row(f"bytes: {bucket}", *(str(row[bucket]) for row in rows))
    topics = sorted(
        {topic for row in rows for topic in row["by_topic"]} | {t for r in records.values() for t in r["by_topic"]}
    )
    for topic in topics:
        cells = []
        for row in rows:
            counted = records.get(row["spins_per_s"], {}).get("by_topic", {}).get(topic)
            count = f"{counted['data']} / {counted['markers']}" if counted else "-"
            cells.append(f"{count} · {row['by_topic'].get(topic, '-')}")
        table.add_row(topic, *cells)
    console.print(table)


def _loop_cell(figures: dict | None) -> str:
    if not figures:
        return "-"
    return " · ".join(f"{figures[name]['p50_ms']} / {figures[name]['p99_ms']}" for name in loop_timings.SERIES)


def _stall_cell(figures: dict | None) -> str:
    if not figures:
        return "-"
    site = figures["sites"][0]["site"].split(" < ")[0] if figures["sites"] else ""
    causes = ", ".join(f"{cause} {ms}" for cause, ms in figures.get("by_cause_ms", {}).items())
    return f"{figures['count']} / {figures['total_ms']} ({causes}) {site}".strip()


def command_run(
    bootstrap: str, spins: int, players: int, rates, load_spins: int, rounds: int, broker_pid, idle_seconds: float = 0
) -> dict:
    """The whole comparison with the machine's load around it (for `bench spins --null-sagas`)."""
    load_before = os.getloadavg()[0]
    results = run(bootstrap, spins, players, rates, load_spins, rounds, broker_pid, idle_seconds)
    if "idle" in results:  # the field the issue's readers use, beside its details
        results["idle_core_percent"] = results["idle"]["idle_core_percent"]
    results["machine"] = {
        "cpus": os.cpu_count(),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
    results["settings"] = {
        "burst_spins": spins,
        "players": players,
        "load_spins_per_saga": load_spins,
        "rounds": rounds,
        "idle_seconds": idle_seconds,
        # What the services' loops were told (their environment is this process's): how they fetch and compress.
        "fetch": {"idle": service_fetch_options(), "busy": busy_fetch_options(), "quiet": quiet_fetch_options()},
        "platform_compression": "zstd" if platform_topics_compressed() else "none",
    }
    return results
