"""Spins end to end through wallet, jackpot and spin: settled spins/s, Kafka messages per spin, latency at 50 % load.

Starts the three services on fresh uuid-prefixed topics, measures the foundation baselines (bench kafka) in the same
run, then: (1) a burst of spin requests as fast as the platform settles them, (2) an open-loop load at 50 % of that
rate for the latency percentiles. Targets: spins/s x m >= 0.35 x the bare consume-decode-encode-produce loop's msg/s;
p99 <= 5 x raw round-trip p99 x sequential hops.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import orjson
import typer
from kafka import TopicPartition
from rich.console import Console
from rich.table import Table

from reelstream.bench.kafka import measure_baselines, percentiles_ms
from reelstream.bench.spin_load import LoadGenerator
from reelstream.processes import spawn
from shared.records import stand_in_batch
from shared.config import load_settings
from shared.kafka import kafka_consumer
from shared.events import encode, envelope
from shared.events.spin import SpinRequested
from shared.events.wallet import Deposit
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics, prefixed_topics

# client -> spin -> wallet (place) -> spin -> client: a spin without a claim (the benchmark's) crosses four edges, three
# services in sequence; a claim adds a debit first and spin -> jackpot -> spin -> wallet -> spin.
SEQUENTIAL_HOPS = 4
# The records of one spin, in causal order: (topic, type suffix). Their broker LogAppendTimes give the per-hop delays.
CHAIN = (
    ("spin.requests", "spin.requested.v1"),
    ("spin.journal", "spin.seed-drawn.v1"),
    ("wallet.internal", "wallet.place-wager.v1"),
    ("wallet.events", "wallet.wager-settled.v1"),
    ("spin.events", "spin.settled.v1"),
)


def _requests(players: list[str], tokens: dict[str, str], count: int) -> list[tuple[uuid.UUID, bytes, bytes]]:
    built = []
    for index in range(count):
        player = players[index % len(players)]
        data = SpinRequested(
            request_id=uuid.uuid4(),
            player_id=player,
            game="rising-joker",
            stake_minor=100,
            currency="EUR",
            session_token=tokens[player],
        )
        built.append(
            (data.request_id, player.encode(), encode(envelope(data, source="bench", time=datetime.now(timezone.utc))))
        )
    return built


def _prefixed_offsets(bootstrap: str, prefix: str) -> int:
    """The sum of end offsets over every topic under the prefix (changelogs included): messages produced so far."""
    names = prefixed_topics(bootstrap, prefix)
    reader = kafka_consumer(bootstrap, group_id=None)
    try:
        tps = [TopicPartition(name, p) for name in names for p in reader.partitions_for_topic(name) or ()]
        return sum(reader.end_offsets(tps).values())
    finally:
        reader.close()


def committed_reader(bootstrap: str):
    """A kafka-python reader of what transactions committed, from the start, committing nothing: how the benchmarks
    read back what the sagas wrote."""
    return kafka_consumer(
        bootstrap,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        auto_offset_reset="earliest",
    )


def _chain_times(
    bootstrap: str, prefix: str, wanted: set[str], timeout_s: float = 60, chain: tuple = CHAIN
) -> dict[str, dict[int, int]]:
    """request id -> {index in `chain`: broker LogAppendTime ms} for the wanted requests, read back from the topics."""
    stage = {(prefix + topic, f"reelstream.{kind}"): index for index, (topic, kind) in enumerate(chain)}
    reader = committed_reader(bootstrap)
    found: dict[str, dict[int, int]] = {rid: {} for rid in wanted}
    try:
        tps = [
            TopicPartition(name, p) for name in sorted({t for t, _ in stage}) for p in reader.partitions_for_topic(name)
        ]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        end = reader.end_offsets(tps)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and any(reader.position(tp) < end[tp] for tp in tps):
            for tp, records in reader.poll(timeout_ms=200, max_records=5000).items():
                for record in records:
                    raw = orjson.loads(record.value)
                    index = stage.get((tp.topic, raw.get("type")))
                    rid = raw.get("correlationid") or (raw.get("data") or {}).get("request_id")
                    if index is not None and rid in found:
                        found[rid].setdefault(index, record.timestamp)
    finally:
        reader.close(autocommit=False)
    return found


def hop_breakdown(
    found: dict[str, dict[int, int]], due_wall: dict[str, float], answered_wall: dict[str, float], chain: tuple = CHAIN
) -> list[dict]:
    """p50/p99 of each hop: request due -> request appended, record i -> record i+1 of `chain`, answer -> read."""
    hops: list[tuple[str, list[float]]] = [("client due → " + chain[0][0], [])]
    hops += [(f"{chain[i][1]} → {chain[i + 1][0]}:{chain[i + 1][1]}", []) for i in range(len(chain) - 1)]
    hops.append((chain[-1][0] + " → client read", []))
    last = len(chain) - 1
    for rid, times in found.items():
        if len(times) != len(chain):
            continue  # rejected, or a record not read back
        hops[0][1].append(times[0] / 1000 - due_wall[rid])
        for i in range(last):
            hops[i + 1][1].append((times[i + 1] - times[i]) / 1000)
        if rid in answered_wall:
            hops[-1][1].append(answered_wall[rid] - times[last] / 1000)
    return [{"hop": name, "samples": len(samples), **percentiles_ms(samples)} for name, samples in hops if samples]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_sources(services, broker_pid: int | None) -> dict[str, int]:
    """Processes whose CPU a spin costs: the three services, the broker when it runs here (given, or the one this
    checkout's `infra up` started), and this load generator."""
    from deploy.local import kafka as local_kafka
    from deploy.local.paths import default_paths

    pids = {service.name: service.process.pid for service in services}
    broker = broker_pid or local_kafka.running_pid(default_paths())
    if broker is not None:
        pids["broker"] = broker
    pids["load generator"] = os.getpid()
    return pids


def _cpu_per_spin(pids: dict[str, int], before: dict[str, float], spins: int) -> dict[str, float]:
    return {name: round((_cpu_s(pid) - before[name]) * 1000 / max(1, spins), 2) for name, pid in pids.items()}


def _start_platform(bootstrap: str, prefix: str, log_dir: Path) -> list:
    env = {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_LOG_LEVEL": "WARNING"}
    services = [spawn(name, env=env, log_dir=log_dir) for name in ("wallet", "jackpot", "spin")]
    for service in services:
        service.wait_ready(180)
    return services


def _deposits(players: list[str]) -> list[tuple[bytes, bytes]]:
    now = datetime.now(timezone.utc)
    return [
        (
            player.encode(),
            encode(
                envelope(
                    Deposit(transaction_id=uuid.uuid4(), player_id=player, amount_minor=10**9, currency="EUR"),
                    source="bench",
                    time=now,
                )
            ),
        )
        for player in players
    ]


def run(
    bootstrap: str,
    spins: int,
    players_count: int,
    latency_seconds: float,
    baseline_messages: int,
    latency_rate: float | None = None,
    broker_pid: int | None = None,
    curve: tuple[float, ...] = (),
) -> dict:
    baselines = measure_baselines(bootstrap, messages=baseline_messages, repeats=1, latency_samples=200)
    prefix = f"bench{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = _start_platform(bootstrap, prefix, Path("bench-results/spins-logs"))
    try:
        measured = asyncio.run(
            _measure(
                bootstrap, prefix, services, spins, players_count, latency_seconds, latency_rate, broker_pid, curve
            )
        )
        return {"baselines": baselines, **measured, "sequential_hops": SEQUENTIAL_HOPS}
    finally:
        for service in services:
            service.stop()
        delete_prefixed(bootstrap, prefix)


async def _measure(
    bootstrap: str,
    prefix: str,
    services: list,
    spins: int,
    players_count: int,
    latency_seconds: float,
    latency_rate: float | None,
    broker_pid: int | None,
    curve: tuple[float, ...],
) -> dict:
    settings = load_settings()
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        players = [f"bench-{n:04d}" for n in range(players_count)]
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}
        deposits = _deposits(players)  # signed as the cashier's where the environment has signing keys
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await load.send_all(f"{prefix}wallet.commands", deposits, signed)
        # The deposits are processed long before the first spin's debit reaches the wallet (same partitions, in order).
        await asyncio.sleep(3)
        await load.burst(_requests(players, tokens, 200))  # warm-up
        before = _prefixed_offsets(bootstrap, prefix)
        pids = _cpu_sources(services, broker_pid)
        cpu_before = {name: _cpu_s(pid) for name, pid in pids.items()}
        burst = await load.burst(_requests(players, tokens, spins))
        burst["cpu_ms_per_spin"] = _cpu_per_spin(pids, cpu_before, burst["settled"])
        burst["messages_per_spin"] = round(
            (_prefixed_offsets(bootstrap, prefix) - before) / max(1, burst["settled"]), 2
        )
        rate = latency_rate or burst["spins_per_s"] / 2
        paced, due_wall = await _paced_with_cpu(
            load, pids, _requests(players, tokens, int(rate * latency_seconds)), rate
        )
        found = _chain_times(bootstrap, prefix, {str(rid) for rid in due_wall})
        answers = load.answers
        hops = hop_breakdown(
            found,
            {str(rid): at for rid, at in due_wall.items()},
            {str(rid): answers.wall[rid] for rid in due_wall if rid in answers.wall},
        )
        paced["rate_forced"] = latency_rate is not None  # then not the issue's "50 % of the burst" point
        points = []
        for point_rate in curve:  # latency against load: where the p99 budget holds on this machine
            point, _ = await _paced_with_cpu(
                load, pids, _requests(players, tokens, int(point_rate * latency_seconds)), point_rate
            )
            points.append(point)
        return {
            "burst": burst,
            "latency_at_half_load": paced,
            "hops_at_half_load": hops,
            "latency_curve": points,
            "rejections": answers.codes,
        }
    finally:
        await load.stop()


async def _paced_with_cpu(load: LoadGenerator, pids: dict[str, int], batch: list, rate: float) -> tuple[dict, dict]:
    """load.paced, plus the CPU ms per spin of each process and the cores busy over that phase."""
    cpu_before = {name: _cpu_s(pid) for name, pid in pids.items()}
    paced, due_wall = await load.paced(batch, rate)
    paced["cpu_ms_per_spin"] = _cpu_per_spin(pids, cpu_before, paced["settled"])
    paced["cpu_cores"] = round(sum(paced["cpu_ms_per_spin"].values()) * rate / 1000, 2)
    return paced, due_wall


def verdict(results: dict) -> dict:
    loop = results["baselines"]["consume_decode_encode_produce"]["msg_per_s"]
    rtt_p99 = results["baselines"]["aiokafka_round_trip"]["p99_ms"]
    burst, paced = results["burst"], results["latency_at_half_load"]
    throughput_ratio = burst["spins_per_s"] * burst["messages_per_spin"] / loop
    latency_budget_ms = 5 * rtt_p99 * results["sequential_hops"]
    return {
        "throughput_ratio": round(throughput_ratio, 3),
        "throughput_target": 0.35,
        "throughput_ok": throughput_ratio >= 0.35,
        "latency_budget_ms": round(latency_budget_ms, 1),
        "latency_ok": paced["p99_ms"] <= latency_budget_ms,
    }


def command(
    spins: int = typer.Option(3000, min=100, help="Spin requests in the throughput burst."),
    players: int = typer.Option(
        3000,
        min=1,
        help="Distinct Rising Joker players (at least --spins: Rising Joker carries a remainder per player, so a "
        "player's next spin is refused SPIN_IN_PROGRESS until the last is settled).",
    ),
    latency_seconds: float = typer.Option(20.0, min=2, help="Duration of the 50 % load phase."),
    baseline_messages: int = typer.Option(10_000, min=1000, help="Records per baseline throughput run."),
    out: Path = typer.Option(Path("bench-results/spins.json"), help="Where to write the JSON results."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
    compare_plaintext: int = typer.Option(
        0,
        "--compare-plaintext",
        min=0,
        help="Instead: N rounds of the burst on the secured listener and on the plaintext benchmark listener "
        "(`infra up --bench-listener`), interleaved; prints and writes secured ÷ plaintext spins/s (target ≥ 0.8).",
    ),
    latency_rate: float = typer.Option(
        None, min=1, help="Spins/s of the latency phase (default: half the burst rate)."
    ),
    broker_pid: int = typer.Option(
        None,
        help="Also count this broker process's CPU (default: the local broker of `reelstream infra up`, when it runs).",
    ),
    curve: str = typer.Option(
        "",
        help="Also measure latency at these rates, e.g. '10,25,50,100' (spins/s, each for "
        "--latency-seconds): where the p99 budget holds on this machine.",
    ),
    null_sagas: bool = typer.Option(
        False,
        "--null-sagas",
        help="Instead: the real saga against the null six-hop (N6) and three-hop (N3) sagas, interleaved in one run "
        "(burst, p50/p99 at --loads, records and commit markers per spin at the lowest load, hops).",
    ),
    loads: str = typer.Option("50,250", help="With --null-sagas: the fixed loads in spins/s, e.g. '50,250'."),
    load_spins: int = typer.Option(
        10_000, min=10, help="With --null-sagas: spins per saga at each load (split over --rounds)."
    ),
    rounds: int = typer.Option(2, min=1, help="With --null-sagas: turns per saga at each load (interleaving)."),
) -> None:
    """Spins end to end with all services: spins/s, messages per spin, p50/p99 at 50 % load, against baselines."""
    console = Console(highlight=False, width=None if os.isatty(1) else 120)
    bootstrap = bootstrap or load_settings().kafka_bootstrap_servers
    load_before = os.getloadavg()[0]
    if players < spins:
        raise typer.BadParameter(
            f"--players {players} < --spins {spins}: the burst sends every spin at once, and a player's second spin "
            "in flight is refused SPIN_IN_PROGRESS (Rising Joker keeps state per player)"
        )
    if compare_plaintext:
        from reelstream.bench import listeners

        return listeners.command(console, bootstrap, spins, players, compare_plaintext, out)
    rates = _rates(curve, "--curve")
    if null_sagas:
        from reelstream.bench import null_compare

        compared = null_compare.command_run(
            bootstrap, spins, players, _rates(loads, "--loads") or (50.0,), load_spins, rounds, broker_pid
        )
        null_compare.print_results(console, compared)
        _write(out, compared, console)
        return
    results = run(bootstrap, spins, players, latency_seconds, baseline_messages, latency_rate, broker_pid, rates)
    results["verdict"] = verdict(results)
    results["machine"] = {
        "cpus": os.cpu_count(),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
    burst, paced, judged = results["burst"], results["latency_at_half_load"], results["verdict"]
    base = results["baselines"]
    table = Table("measure", "value")
    table.add_row("settled spins/s (burst of %d)" % burst["requests"], f"{burst['spins_per_s']:,}")
    table.add_row("Kafka messages per settled spin (m)", str(burst["messages_per_spin"]))
    table.add_row(
        "rejected in the burst / the latency phase (by code)", f"{burst['rejected'] or 0} / {paced['rejected'] or 0}"
    )
    cpu_names = " / ".join(burst["cpu_ms_per_spin"])
    table.add_row(f"CPU ms per spin ({cpu_names})", " / ".join(str(v) for v in burst["cpu_ms_per_spin"].values()))
    table.add_row(
        "bare consume→decode→encode→produce loop msg/s", f"{base['consume_decode_encode_produce']['msg_per_s']:,}"
    )
    table.add_row(
        "spins/s × m ÷ loop msg/s (target ≥ 0.35)",
        f"{judged['throughput_ratio']} ({'ok' if judged['throughput_ok'] else 'MISSED'})",
    )
    table.add_row(f"latency at {paced['rate_per_s']} spins/s: p50 / p99 ms", f"{paced['p50_ms']} / {paced['p99_ms']}")
    table.add_row(
        f"CPU ms per spin in the latency phase ({cpu_names})",
        " / ".join(str(v) for v in paced["cpu_ms_per_spin"].values()),
    )
    table.add_row(f"CPU cores busy in that phase (of {os.cpu_count()})", str(paced["cpu_cores"]))
    table.add_row(
        "p50 ms of the first / last quarter of that phase",
        f"{paced['first_quarter_p50_ms']} / {paced['last_quarter_p50_ms']}",
    )
    table.add_row(
        "raw aiokafka round trip p99 ms × hops × 5",
        f"{base['aiokafka_round_trip']['p99_ms']} × {results['sequential_hops']} × 5 = {judged['latency_budget_ms']}",
    )
    table.add_row("p99 within budget", "ok" if judged["latency_ok"] else "MISSED")
    console.print(table)
    hops = Table(f"hop at {paced['rate_per_s']} spins/s (broker LogAppendTime of each record)", "n", "p50 ms", "p99 ms")
    for hop in results["hops_at_half_load"]:
        hops.add_row(hop["hop"], str(hop["samples"]), str(hop["p50_ms"]), str(hop["p99_ms"]))
    console.print(hops)
    if results["latency_curve"]:
        points = Table(
            "spins/s",
            "p50 ms",
            "p99 ms",
            f"p99 ≤ {judged['latency_budget_ms']} ms",
            f"CPU ms per spin ({cpu_names})",
            "CPU cores",
        )
        for point in results["latency_curve"]:
            points.add_row(
                str(point["rate_per_s"]),
                str(point["p50_ms"]),
                str(point["p99_ms"]),
                "yes" if point["p99_ms"] <= judged["latency_budget_ms"] else "no",
                " / ".join(str(v) for v in point["cpu_ms_per_spin"].values()),
                str(point["cpu_cores"]),
            )
        console.print(points)
    _write(out, results, console)


def _rates(text: str, option: str) -> tuple[float, ...]:
    try:
        return tuple(float(rate) for rate in text.split(",") if rate.strip())
    except ValueError:
        raise typer.BadParameter(f"{option} takes spins/s separated by commas, e.g. 10,25,50; got {text!r}") from None


def _write(out: Path, results: dict, console: Console) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {out}", markup=False)
