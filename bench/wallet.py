"""Wallet service throughput and latency through the running service, as a ratio against the bare Kafka loop."""

# Interleaved rounds on the same N pre-loaded commands: the bare consume → decode → validate → encode → produce loop
# (kafka-python, bench/kafka.py), a bare faust agent doing the same (what the wallet's former adapter was
# built on), and the wallet service (rate = events / (last − first LogAppendTime on wallet.events)); medians over the
# rounds. Then latency at half the measured rate (broker time of the event − broker time of its command), and restart
# to ready with the partition snapshots kept (written at SIGTERM) and wiped (a full fold of wallet.events).

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import orjson
import typer
from kafka import TopicPartition
from rich.console import Console
from rich.table import Table

from bench.kafka import codec_round_trip, scratch_topics, transform_loop
from reelstream.processes import spawn
from shared.config import load_settings
from shared import records
from shared import records as provenance
from shared.events import derived_id, encode, envelope
from shared.events.wallet import DebitWager, Deposit, SettleWager
from shared.kafka import consumer, producer
from shared.topic_admin import delete_prefixed, delete_topics, ensure_topics
from shared.topics import PLAYER_PARTITIONS, WALLET_COMMANDS, WALLET_EVENTS, WALLET_SNAPSHOTS


def commands_for(tag: str, players: int, wagers: int) -> list:
    """Round-robin over players (per-player order kept): a deposit, then `wagers` × (debit, settle)."""
    rounds = [
        [
            Deposit(
                transaction_id=derived_id(tag, p, "d"), player_id=f"{tag}-{p}", amount_minor=100_000, currency="EUR"
            )
            for p in range(players)
        ]
    ]
    for w in range(wagers):
        debits, settles = [], []
        for p in range(players):
            wager = derived_id(tag, p, "w", w)
            debits.append(
                DebitWager(
                    transaction_id=wager, player_id=f"{tag}-{p}", amount_minor=100, currency="EUR", game="rising-joker"
                )
            )
            settles.append(
                SettleWager(
                    transaction_id=derived_id(tag, p, "s", w),
                    player_id=f"{tag}-{p}",
                    wager_id=wager,
                    currency="EUR",
                    house_win_minor=w % 3 * 50,
                    jackpot_win_minor=0,
                    breakage_micro=0,
                    contribution_micro=1_000_000,
                    network_id="net-bench",
                )
            )
        rounds += [debits, settles]
    return [command for batch in rounds for command in batch]


def records_of(commands: list) -> list[tuple[bytes, bytes]]:
    now = datetime.now(timezone.utc)
    return [(c.player_id.encode(), encode(envelope(c, source="bench", time=now))) for c in commands]


def produce(bootstrap: str, topic: str, records, rate_per_s: float | None = None) -> None:
    client = producer(bootstrap, client_id="bench-wallet")
    records = list(records)
    signed = provenance.stand_in_batch([(WALLET_COMMANDS, key, value) for key, value in records], "spin")
    started = time.perf_counter()
    for index, ((key, value), headers) in enumerate(zip(records, signed)):
        if rate_per_s and index % 20 == 0:
            delay = started + index / rate_per_s - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        client.send(topic, key=key, value=value, headers=headers)  # stands in for the spin service (and the cashier)
    client.flush(60)
    client.close(10)


def read_all(bootstrap: str, topic: str, count: int, timeout_s: float) -> list:
    reader = consumer(bootstrap, group_id=None)
    reader.assign([TopicPartition(topic, p) for p in range(PLAYER_PARTITIONS)])
    reader.seek_to_beginning()
    records, deadline = [], time.monotonic() + timeout_s
    while len(records) < count and time.monotonic() < deadline:
        for batch in reader.poll(timeout_ms=500, max_records=5_000).values():
            records.extend(batch)
    reader.close(autocommit=False)
    if len(records) < count:
        raise typer.Exit(f"only {len(records)} of {count} records on {topic} within {timeout_s:.0f} s")
    return records


def _tx(value: bytes) -> str:
    return orjson.loads(value)["data"]["transaction_id"]


def _ready_ms(log_text: str) -> int:
    return int(re.findall(r"wallet: restored \d+ partitions .* ready (\d+) ms after start", log_text)[-1])


def _restore_ms(log_text: str) -> int:
    """Time restoring the partitions (snapshot load + tail fold) in one start's log: they restore side by side, so
    the slowest one counts."""
    return round(max(float(ms) for ms in re.findall(r"partition \d+ restored in (\d+) ms", log_text)))


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _service_round(bootstrap: str, records: list, workdir: Path) -> dict:
    """Pre-load the commands under a fresh prefix, start the wallet, wait for every event."""
    prefix = f"wbench-{uuid.uuid4().hex[:8]}-"
    ensure_topics(bootstrap, prefix=prefix)
    env = {
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "REELSTREAM_CRASH_AT": "",
    }
    produce(bootstrap, prefix + WALLET_COMMANDS, records)
    service = spawn("wallet", env=env, log_dir=workdir / "logs")
    try:
        service.wait_ready(120)
        cpu_before = _cpu_s(service.process.pid)
        events = read_all(bootstrap, prefix + WALLET_EVENTS, len(records), 600)
        cpu_ms = (_cpu_s(service.process.pid) - cpu_before) * 1000
    except BaseException:
        service.stop()
        raise
    stamps = sorted(record.timestamp for record in events)
    rate = (len(stamps) - 1) / max((stamps[-1] - stamps[0]) / 1000, 1e-3)
    return {"rate": rate, "cpu_ms_per_command": cpu_ms / len(records), "service": service, "prefix": prefix, "env": env}


def command(
    players: int = typer.Option(1_000, min=10, help="Players in the throughput run."),
    wagers: int = typer.Option(10, min=1, help="Wagers (debit + settle) per player."),
    rounds: int = typer.Option(3, min=1, help="Interleaved rounds (bare loop, bare faust, wallet); medians reported."),
    latency_seconds: float = typer.Option(10.0, min=2.0, help="Duration of the half-load latency run."),
    latency_rate: float = typer.Option(0.0, min=0.0, help="Input rate of the latency run (0: half the measured rate)."),
    out: Path = typer.Option(Path("bench-results/wallet.json"), help="Where to write the JSON results."),
) -> None:
    """Wallet service: commands/s and p50/p99 at half load vs the bare Kafka loop; restart recovery time."""
    bootstrap = load_settings().kafka_bootstrap_servers
    console = Console()
    workdir = Path(tempfile.mkdtemp(prefix="bench-wallet-"))
    load_before = os.getloadavg()[0]
    records = records_of(commands_for("tput", players, wagers))
    runs: dict[str, list[float]] = {"bare": [], "faust": [], "wallet": [], "cpu": []}
    last, prefixes = None, []
    try:
        for round_index in range(rounds):
            with scratch_topics(bootstrap, 3) as (source, sink, faust_sink):
                produce(bootstrap, source, records)
                runs["bare"].append(transform_loop(bootstrap, source, sink, len(records), codec_round_trip))
                runs["faust"].append(_bare_faust_loop(bootstrap, source, faust_sink, len(records), workdir))
            if last is not None:
                last["service"].stop()
            last = _service_round(bootstrap, records, workdir / f"round-{round_index}")
            prefixes.append(last["prefix"])
            runs["wallet"].append(last["rate"])
            runs["cpu"].append(last["cpu_ms_per_command"])
        rate = statistics.median(runs["wallet"])
        latency = _half_load_latency(bootstrap, last["prefix"], latency_rate * 2 or rate, latency_seconds, len(records))
        recovery = _recovery(last["service"], last["env"], workdir / f"round-{rounds - 1}")
        last = None
    finally:
        if last is not None:
            last["service"].stop()
        for prefix in prefixes:
            delete_prefixed(bootstrap, prefix)
        shutil.rmtree(workdir, ignore_errors=True)
    baseline, faust_baseline = statistics.median(runs["bare"]), statistics.median(runs["faust"])
    results = {
        "commands": len(records),
        "players": players,
        "rounds": rounds,
        "service_commands_per_s": round(rate),
        "bare_loop_msg_per_s": round(baseline),
        "ratio": round(rate / baseline, 3),
        "bare_faust_loop_msg_per_s": round(faust_baseline),
        "faust_to_bare_loop": round(faust_baseline / baseline, 3),
        "ratio_to_bare_faust": round(rate / faust_baseline, 3),
        "runs": {key: [round(value, 2 if key == "cpu" else None) for value in values] for key, values in runs.items()},
        "ratios_per_round": [round(w / b, 3) for w, b in zip(runs["wallet"], runs["bare"])],
        "wallet_cpu_ms_per_command": round(statistics.median(runs["cpu"]), 3),
        **latency,
        **recovery,
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    _print(console, results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    console.print(f"wrote {out}")


def _half_load_latency(bootstrap: str, prefix: str, rate: float, seconds: float, already: int) -> dict:
    half = rate / 2
    count = max(200, int(half * seconds))
    latency_records = records_of(commands_for("lat", max(10, count // 21), 10))[:count]
    produce(bootstrap, prefix + WALLET_COMMANDS, latency_records, rate_per_s=half)
    events = read_all(bootstrap, prefix + WALLET_EVENTS, already + len(latency_records), 300)
    commands = read_all(bootstrap, prefix + WALLET_COMMANDS, already + len(latency_records), 120)
    sent = {_tx(r.value): r.timestamp for r in commands}
    wanted = {_tx(value) for _, value in latency_records}
    samples = sorted(r.timestamp - sent[_tx(r.value)] for r in events if _tx(r.value) in wanted)
    return {
        "latency_rate_per_s": round(half),
        "latency_samples": len(samples),
        "latency_p50_ms": statistics.median(samples),
        "latency_p99_ms": samples[int(len(samples) * 0.99) - 1],
    }


def _recovery(service, env: dict, workdir: Path) -> dict:
    """Restart twice over the same wallet.events: with the snapshots the SIGTERM wrote (nothing left to fold), and
    with them deleted (every event folded). A snapshot N events old costs N / (events folded per s of the second)."""
    service.stop()
    results = {}
    for case in ("current", "wiped"):
        if case == "wiped":  # the snapshots topic deleted: the restart folds wallet.events from the start
            delete_topics(load_settings().kafka_bootstrap_servers, [env["REELSTREAM_TOPIC_PREFIX"] + WALLET_SNAPSHOTS])
        restarted = spawn("wallet", env=env, log_dir=workdir / f"logs-{case}")
        restarted.wait_ready(600)
        restarted.stop()
        log_text = restarted.log_text()
        results[f"restart_ready_ms_snapshot_{case}"] = _ready_ms(log_text)
        results[f"restore_ms_snapshot_{case}"] = _restore_ms(log_text)
        results[f"events_folded_snapshot_{case}"] = int(re.findall(r"snapshot, (\d+) events folded", log_text)[-1])
    results["fold_events_per_s"] = round(
        results["events_folded_snapshot_wiped"] * 1000 / max(1, results["restore_ms_snapshot_wiped"])
    )
    return results


def _print(console: Console, results: dict) -> None:
    table = Table("measure", "value")
    table.add_row(
        "commands through the service (pre-loaded) × rounds", f"{results['commands']:,} × {results['rounds']}"
    )
    table.add_row("wallet service, commands/s (median)", f"{results['service_commands_per_s']:,}")
    table.add_row("bare consume→decode→validate→encode→produce, msg/s (median)", f"{results['bare_loop_msg_per_s']:,}")
    table.add_row("ratio (target ≥ 0.5)", f"{results['ratio']:.3f}  (per round: {results['ratios_per_round']})")
    table.add_row("bare faust agent: decode→encode→send, msg/s (median)", f"{results['bare_faust_loop_msg_per_s']:,}")
    table.add_row("bare faust agent / bare loop", f"{results['faust_to_bare_loop']:.3f}")
    table.add_row("wallet CPU ms per command (median)", f"{results['wallet_cpu_ms_per_command']}")
    table.add_row(
        f"latency p50 / p99 at {results['latency_rate_per_s']:,}/s (ms)",
        f"{results['latency_p50_ms']} / {results['latency_p99_ms']}",
    )
    for case, label in (("current", "snapshots current"), ("wiped", "no snapshot, fold from the start")):
        table.add_row(
            f"restart → ready / restore only, {label} (ms)",
            f"{results[f'restart_ready_ms_snapshot_{case}']:,} / {results[f'restore_ms_snapshot_{case}']:,}"
            f" ({results[f'events_folded_snapshot_{case}']:,} events folded)",
        )
    table.add_row("fold rate on recovery (events/s)", f"{results['fold_events_per_s']:,}")
    console.print(table)


def _bare_faust_loop(bootstrap: str, source: str, sink: str, count: int, workdir: Path) -> float:
    """The same loop as a faust agent (the former wallet adapter's producer settings, no table): faust's ceiling."""
    run = subprocess.run(
        [sys.executable, "-m", "bench.wallet", source, sink, str(count), str(workdir / "faust-baseline")],
        env={**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap},
        capture_output=True,
        text=True,
        timeout=900,
    )
    delete_prefixed(bootstrap, f"{source}-faust")
    found = re.findall(r"bare-faust-rate (\d+(?:\.\d+)?)", run.stdout)
    if not found:
        raise typer.Exit(f"bare faust loop failed: {run.stdout[-2000:]}{run.stderr[-2000:]}")
    return float(found[-1])


def _run_bare_faust(source: str, sink: str, count: int, datadir: str) -> None:
    import faust
    from faust.transport.drivers import aiokafka as faust_aiokafka

    from shared.events import decode
    from shared.security import faust_credentials

    # The former wallet adapter's producer settings: faust enables idempotence only in exactly_once mode.
    original = faust_aiokafka.Producer._settings_extra
    faust_aiokafka.Producer._settings_extra = lambda self: {**original(self), "acks": "all", "enable_idempotence": True}

    settings = load_settings()
    app = faust.App(
        f"{source}-faust",
        broker=settings.faust_broker,
        broker_credentials=faust_credentials(),
        datadir=datadir,
        autodiscover=False,
        web_enabled=False,
        topic_partitions=PLAYER_PARTITIONS,
        producer_acks=-1,
        producer_linger=0.002,
        consumer_auto_offset_reset="earliest",
        broker_commit_every=2_000,
        broker_commit_interval=1.0,
    )
    raw = {"key_type": bytes, "value_type": bytes, "key_serializer": "raw", "value_serializer": "raw"}
    source_topic, sink_topic = app.topic(source, **raw), app.topic(sink, **raw)
    done, first = [0], []

    @app.agent(source_topic)
    async def transform(stream):
        async for event in stream.events():
            first or first.append(time.monotonic())
            await sink_topic.send(
                key=event.message.key, value=encode(decode(event.message.value)), headers=records.headers_for("bench")
            )
            done[0] += 1
            if done[0] == count:
                print(f"bare-faust-rate {count / (time.monotonic() - first[0]):.1f}", flush=True)
                os._exit(0)

    app.Worker(loglevel="WARNING", quiet=True, redirect_stdouts=False).execute_from_commandline()


if __name__ == "__main__":
    _run_bare_faust(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
