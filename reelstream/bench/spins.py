"""Spins end to end through wallet, jackpot and spin: settled spins/s, Kafka messages per spin, latency at 50 % load.

Starts the three services on fresh uuid-prefixed topics, measures the foundation baselines (bench kafka) in the same
run, then: (1) a burst of spin requests as fast as the platform settles them, (2) an open-loop load at 50 % of that
rate for the latency percentiles. Targets: spins/s x m >= 0.35 x the bare consume-decode-encode-produce loop's msg/s;
p99 <= 5 x raw round-trip p99 x sequential hops.
"""
from __future__ import annotations

import json
import os
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import orjson
import typer
from kafka import KafkaConsumer, TopicPartition
from rich.console import Console
from rich.table import Table

from reelstream.bench.kafka import measure_baselines, percentiles_ms
from reelstream.processes import spawn
from shared.config import load_settings
from shared.events import encode, envelope
from shared.events.spin import SpinRejected, SpinRequested, SpinSettled
from shared.events.wallet import Deposit
from shared.kafka import producer
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics, prefixed_topics

# client -> spin -> wallet (debit) -> spin -> wallet (settle) -> spin -> client; a claim adds spin -> jackpot -> spin.
SEQUENTIAL_HOPS = 6
# The records of one spin, in causal order: (topic, type suffix). Their broker LogAppendTimes give the per-hop delays.
CHAIN = (
    ("spin.requests", "spin.requested.v1"),
    ("wallet.commands", "wallet.debit-wager.v1"),
    ("wallet.events", "wallet.wager-debited.v1"),
    ("spin.journal", "spin.seed-drawn.v1"),
    ("jackpot.commands", "jackpot.contribute.v1"),
    ("wallet.commands", "wallet.settle-wager.v1"),
    ("wallet.events", "wallet.wager-settled.v1"),
    ("spin.events", "spin.settled.v1"),
)


_ANSWER_TYPES = frozenset({SpinSettled.TYPE, SpinRejected.TYPE})


class Answers:
    """Reads spin.events from its end; remembers when each request's first answer arrived."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                                    isolation_level="read_committed")
        tps = [TopicPartition(topic, p) for p in self.reader.partitions_for_topic(topic)]
        self.reader.assign(tps)
        self.reader.seek_to_end(*tps)
        for tp in tps:
            self.reader.position(tp)
        self.at: dict[uuid.UUID, float] = {}
        self.wall: dict[uuid.UUID, float] = {}  # the same instants on the wall clock (to compare with broker times)
        self.settled = 0
        self.codes: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            for records in self.reader.poll(timeout_ms=50).values():
                now, wall = time.perf_counter(), time.time()
                for record in records:
                    # Only the answer's type, request id and code: the load generator shares the 2 cores with the
                    # system under test, and a full validation of every answer cost it ~0.1 ms a spin.
                    raw = orjson.loads(record.value)
                    type_, data = raw.get("type"), raw.get("data") or {}
                    request_id = uuid.UUID(data["request_id"]) if type_ in _ANSWER_TYPES else None
                    if request_id is not None and request_id not in self.at:
                        self.at[request_id] = now
                        self.wall[request_id] = wall
                        self.settled += type_ == SpinSettled.TYPE
                        if type_ == SpinRejected.TYPE:
                            self.codes[data["code"]] = self.codes.get(data["code"], 0) + 1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.reader.close(autocommit=False)


def _requests(players: list[str], tokens: dict[str, str], count: int) -> list[tuple[uuid.UUID, bytes, bytes]]:
    built = []
    for index in range(count):
        player = players[index % len(players)]
        data = SpinRequested(request_id=uuid.uuid4(), player_id=player, game="rising-joker", stake_minor=100,
                             currency="EUR", session_token=tokens[player])
        built.append((data.request_id, player.encode(), encode(envelope(data, source="bench", time=datetime.now(timezone.utc)))))
    return built


def _prefixed_offsets(bootstrap: str, prefix: str) -> int:
    """The sum of end offsets over every topic under the prefix (changelogs included): messages produced so far."""
    names = prefixed_topics(bootstrap, prefix)
    reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    try:
        tps = [TopicPartition(name, p) for name in names for p in reader.partitions_for_topic(name) or ()]
        return sum(reader.end_offsets(tps).values())
    finally:
        reader.close()


def _wait_answers(answers: Answers, ids: list[uuid.UUID], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while any(rid not in answers.at for rid in ids[-50:]) or len([r for r in ids if r in answers.at]) < len(ids):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)


def _burst(sender, topic: str, answers: Answers, batch: list) -> dict:
    started = time.perf_counter()
    for request_id, key, value in batch:
        sender.send(topic, key=key, value=value)
    sender.flush()
    _wait_answers(answers, [rid for rid, _, _ in batch], 300)
    answered = [answers.at[rid] for rid, _, _ in batch if rid in answers.at]
    elapsed = max(answered) - started
    return {"requests": len(batch), "answered": len(answered), "seconds": round(elapsed, 2),
            "spins_per_s": round(len(answered) / elapsed, 1)}


def _paced(sender, topic: str, answers: Answers, batch: list, rate: float) -> tuple[dict, dict[uuid.UUID, float]]:
    """Open loop: request i is sent at start + i / rate; latency = answer read - that send (wall clock sent_wall)."""
    sent_at: dict[uuid.UUID, float] = {}
    sent_wall: dict[uuid.UUID, float] = {}
    lag = []
    started = time.perf_counter()
    for index, (request_id, key, value) in enumerate(batch):
        due = started + index / rate
        if (ahead := due - time.perf_counter()) > 0:
            time.sleep(ahead)  # one sleep per request (Linux oversleeps by ~0.1 ms; the lag is measured below)
        sent_at[request_id] = time.perf_counter()
        sent_wall[request_id] = time.time()
        lag.append(sent_at[request_id] - due)
        sender.send(topic, key=key, value=value)
    sender.flush()
    _wait_answers(answers, list(sent_at), 120)
    took = [answers.at[rid] - sent for rid, sent in sent_at.items() if rid in answers.at]
    pacing, quarter = percentiles_ms(lag), max(1, len(took) // 4)
    return ({"rate_per_s": round(rate, 1), "requests": len(batch), "answered": len(took), **percentiles_ms(took),
             "send_lag_p50_ms": pacing["p50_ms"], "send_lag_p99_ms": pacing["p99_ms"],
             # stationary or growing: a queue that builds up shows as a last quarter far above the first
             "first_quarter_p50_ms": percentiles_ms(took[:quarter])["p50_ms"],
             "last_quarter_p50_ms": percentiles_ms(took[-quarter:])["p50_ms"]}, sent_wall)


def _chain_times(bootstrap: str, prefix: str, wanted: set[str], timeout_s: float = 60) -> dict[str, dict[int, int]]:
    """request id -> {index in CHAIN: broker LogAppendTime ms} for the wanted requests, read back from the topics."""
    stage = {(prefix + topic, f"reelstream.{kind}"): index for index, (topic, kind) in enumerate(CHAIN)}
    reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                           isolation_level="read_committed", auto_offset_reset="earliest")
    found: dict[str, dict[int, int]] = {rid: {} for rid in wanted}
    try:
        tps = [TopicPartition(name, p) for name in sorted({t for t, _ in stage}) for p in reader.partitions_for_topic(name)]
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


def hop_breakdown(found: dict[str, dict[int, int]], sent_wall: dict[str, float], answered_wall: dict[str, float]) -> list[dict]:
    """p50/p99 of each hop: client send -> request appended, record i -> record i+1 of CHAIN, spin.settled -> read."""
    hops: list[tuple[str, list[float]]] = [("client send → " + CHAIN[0][0], [])]
    hops += [(f"{CHAIN[i][1]} → {CHAIN[i + 1][0]}:{CHAIN[i + 1][1]}", []) for i in range(len(CHAIN) - 1)]
    hops.append((CHAIN[-1][0] + " → client read", []))
    last = len(CHAIN) - 1
    for rid, times in found.items():
        if len(times) != len(CHAIN):
            continue  # rejected, or a record not read back
        hops[0][1].append(times[0] / 1000 - sent_wall[rid])
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


def _deposit_all(sender, topic: str, players: list[str], bootstrap: str, prefix: str) -> None:
    for player in players:
        data = Deposit(transaction_id=uuid.uuid4(), player_id=player, amount_minor=10**9, currency="EUR")
        sender.send(topic, key=player.encode(), value=encode(envelope(data, source="bench", time=datetime.now(timezone.utc))))
    sender.flush()
    time.sleep(3)  # the deposits are processed long before the first spin's debit reaches the wallet (same partitions, in order)


def run(bootstrap: str, spins: int, players_count: int, latency_seconds: float, baseline_messages: int,
        latency_rate: float | None = None, broker_pid: int | None = None, curve: tuple[float, ...] = ()) -> dict:
    settings = load_settings()
    baselines = measure_baselines(bootstrap, messages=baseline_messages, repeats=1, latency_samples=200)
    prefix = f"bench{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = _start_platform(bootstrap, prefix, Path("bench-results/spins-logs"))
    sender = producer(bootstrap, client_id="bench-spins", linger_ms=1)
    answers = Answers(bootstrap, f"{prefix}spin.events")
    try:
        players = [f"bench-{n:04d}" for n in range(players_count)]
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}
        _deposit_all(sender, f"{prefix}wallet.commands", players, bootstrap, prefix)
        _burst(sender, f"{prefix}spin.requests", answers, _requests(players, tokens, 200))  # warm-up
        before = _prefixed_offsets(bootstrap, prefix)
        pids = _cpu_sources(services, broker_pid)
        cpu_before = {name: _cpu_s(pid) for name, pid in pids.items()}
        burst = _burst(sender, f"{prefix}spin.requests", answers, _requests(players, tokens, spins))
        burst["cpu_ms_per_spin"] = _cpu_per_spin(pids, cpu_before, burst["answered"])
        burst["messages_per_spin"] = round((_prefixed_offsets(bootstrap, prefix) - before) / max(1, burst["answered"]), 2)
        rate = latency_rate or burst["spins_per_s"] / 2
        batch = _requests(players, tokens, int(rate * latency_seconds))
        cpu_before = {name: _cpu_s(pid) for name, pid in pids.items()}
        paced, sent_wall = _paced(sender, f"{prefix}spin.requests", answers, batch, rate)
        paced["cpu_ms_per_spin"] = _cpu_per_spin(pids, cpu_before, paced["answered"])
        paced["cpu_cores"] = round(sum(paced["cpu_ms_per_spin"].values()) * rate / 1000, 2)
        found = _chain_times(bootstrap, prefix, {str(rid) for rid in sent_wall})
        hops = hop_breakdown(found, {str(rid): at for rid, at in sent_wall.items()},
                             {str(rid): answers.wall[rid] for rid in sent_wall if rid in answers.wall})
        paced["rate_forced"] = latency_rate is not None  # then not the issue's "50 % of the burst" point
        points = []
        for point_rate in curve:  # latency against load: where the p99 budget holds on this machine
            cpu_before = {name: _cpu_s(pid) for name, pid in pids.items()}
            point, _ = _paced(sender, f"{prefix}spin.requests", answers,
                              _requests(players, tokens, int(point_rate * latency_seconds)), point_rate)
            point["cpu_ms_per_spin"] = _cpu_per_spin(pids, cpu_before, point["answered"])
            point["cpu_cores"] = round(sum(point["cpu_ms_per_spin"].values()) * point_rate / 1000, 2)
            points.append(point)
        return {"baselines": baselines, "burst": burst, "latency_at_half_load": paced, "hops_at_half_load": hops,
                "latency_curve": points, "rejections": answers.codes, "sequential_hops": SEQUENTIAL_HOPS}
    finally:
        answers.close()
        sender.close()
        for service in services:
            service.stop()
        delete_prefixed(bootstrap, prefix)


def verdict(results: dict) -> dict:
    loop = results["baselines"]["consume_decode_encode_produce"]["msg_per_s"]
    rtt_p99 = results["baselines"]["aiokafka_round_trip"]["p99_ms"]
    burst, paced = results["burst"], results["latency_at_half_load"]
    throughput_ratio = burst["spins_per_s"] * burst["messages_per_spin"] / loop
    latency_budget_ms = 5 * rtt_p99 * results["sequential_hops"]
    return {"throughput_ratio": round(throughput_ratio, 3), "throughput_target": 0.35,
            "throughput_ok": throughput_ratio >= 0.35, "latency_budget_ms": round(latency_budget_ms, 1),
            "latency_ok": paced["p99_ms"] <= latency_budget_ms}


def command(
    spins: int = typer.Option(3000, min=100, help="Spin requests in the throughput burst."),
    players: int = typer.Option(300, min=1, help="Distinct Rising Joker players."),
    latency_seconds: float = typer.Option(20.0, min=2, help="Duration of the 50 % load phase."),
    baseline_messages: int = typer.Option(10_000, min=1000, help="Records per baseline throughput run."),
    out: Path = typer.Option(Path("bench-results/spins.json"), help="Where to write the JSON results."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
    latency_rate: float = typer.Option(None, min=1, help="Spins/s of the latency phase (default: half the burst rate)."),
    broker_pid: int = typer.Option(None, help="Also count this broker process's CPU (default: the local broker of "
                                              "`reelstream infra up`, when it runs)."),
    curve: str = typer.Option("", help="Also measure latency at these rates, e.g. '10,25,50,100' (spins/s, each for "
                                       "--latency-seconds): where the p99 budget holds on this machine."),
) -> None:
    """Spins end to end with all services: spins/s, messages per spin, p50/p99 at 50 % load, against baselines."""
    console = Console(highlight=False, width=None if os.isatty(1) else 120)
    bootstrap = bootstrap or load_settings().kafka_bootstrap_servers
    load_before = os.getloadavg()[0]
    try:
        rates = tuple(float(rate) for rate in curve.split(",") if rate.strip())
    except ValueError:
        raise typer.BadParameter(f"--curve takes spins/s separated by commas, e.g. 10,25,50; got {curve!r}") from None
    results = run(bootstrap, spins, players, latency_seconds, baseline_messages, latency_rate, broker_pid, rates)
    results["verdict"] = verdict(results)
    results["machine"] = {"cpus": os.cpu_count(), "load_1min_before": round(load_before, 2),
                          "load_1min_after": round(os.getloadavg()[0], 2)}
    burst, paced, judged = results["burst"], results["latency_at_half_load"], results["verdict"]
    base = results["baselines"]
    table = Table("measure", "value")
    table.add_row("settled spins/s (burst of %d)" % burst["requests"], f"{burst['spins_per_s']:,}")
    table.add_row("Kafka messages per settled spin (m)", str(burst["messages_per_spin"]))
    cpu_names = " / ".join(burst["cpu_ms_per_spin"])
    table.add_row(f"CPU ms per spin ({cpu_names})", " / ".join(str(v) for v in burst["cpu_ms_per_spin"].values()))
    table.add_row("bare consume→decode→encode→produce loop msg/s", f"{base['consume_decode_encode_produce']['msg_per_s']:,}")
    table.add_row("spins/s × m ÷ loop msg/s (target ≥ 0.35)", f"{judged['throughput_ratio']} ({'ok' if judged['throughput_ok'] else 'MISSED'})")
    table.add_row(f"latency at {paced['rate_per_s']} spins/s: p50 / p99 ms", f"{paced['p50_ms']} / {paced['p99_ms']}")
    table.add_row(f"CPU ms per spin in the latency phase ({cpu_names})", " / ".join(str(v) for v in paced["cpu_ms_per_spin"].values()))
    table.add_row(f"CPU cores busy in that phase (of {os.cpu_count()})", str(paced["cpu_cores"]))
    table.add_row("p50 ms of the first / last quarter of that phase", f"{paced['first_quarter_p50_ms']} / {paced['last_quarter_p50_ms']}")
    table.add_row("raw aiokafka round trip p99 ms × hops × 5", f"{base['aiokafka_round_trip']['p99_ms']} × {results['sequential_hops']} × 5 = {judged['latency_budget_ms']}")
    table.add_row("p99 within budget", "ok" if judged["latency_ok"] else "MISSED")
    console.print(table)
    hops = Table(f"hop at {paced['rate_per_s']} spins/s (broker LogAppendTime of each record)", "n", "p50 ms", "p99 ms")
    for hop in results["hops_at_half_load"]:
        hops.add_row(hop["hop"], str(hop["samples"]), str(hop["p50_ms"]), str(hop["p99_ms"]))
    console.print(hops)
    if results["latency_curve"]:
        points = Table("spins/s", "p50 ms", "p99 ms", f"p99 ≤ {judged['latency_budget_ms']} ms",
                       f"CPU ms per spin ({cpu_names})", "CPU cores")
        for point in results["latency_curve"]:
            points.add_row(str(point["rate_per_s"]), str(point["p50_ms"]), str(point["p99_ms"]),
                           "yes" if point["p99_ms"] <= judged["latency_budget_ms"] else "no",
                           " / ".join(str(v) for v in point["cpu_ms_per_spin"].values()), str(point["cpu_cores"]))
        console.print(points)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {out}", markup=False)
