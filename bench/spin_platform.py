"""What the spin benchmarks share: a platform of the three services, the requests and deposits they send, the
records of one spin read back per hop, and the CPU each process spends."""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import orjson
from kafka import TopicPartition

from bench.kafka import percentiles_ms
from reelstream.processes import spawn
from shared.events import encode, envelope
from shared.events.spin import SpinRequested
from shared.events.wallet import Deposit
from shared.kafka import kafka_consumer
from shared.topic_admin import prefixed_topics

# The records of one spin, in causal order: (topic, type suffix). Their broker LogAppendTimes give the per-hop delays.
CHAIN = (
    ("spin.requests", "spin.requested.v1"),
    ("spin.journal", "spin.seed-drawn.v1"),
    ("wallet.internal", "wallet.place-wager.v1"),
    ("wallet.events", "wallet.wager-settled.v1"),
    ("spin.events", "spin.settled.v1"),
)


def spin_requests(players: list[str], tokens: dict[str, str], count: int) -> list[tuple[uuid.UUID, bytes, bytes]]:
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


def prefixed_offsets(bootstrap: str, prefix: str) -> int:
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


def chain_times(
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


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_sources(services, broker_pid: int | None) -> dict[str, int]:
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


def cpu_per_spin(pids: dict[str, int], before: dict[str, float], spins: int) -> dict[str, float]:
    return {name: round((cpu_s(pid) - before[name]) * 1000 / max(1, spins), 2) for name, pid in pids.items()}


def start_platform(bootstrap: str, prefix: str, log_dir: Path) -> list:
    env = {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_LOG_LEVEL": "WARNING"}
    services = [spawn(name, env=env, log_dir=log_dir) for name in ("wallet", "jackpot", "spin")]
    for service in services:
        service.wait_ready(180)
    return services


def deposit_commands(players: list[str], currencies: tuple[str, ...] = ("EUR",)) -> list[tuple[bytes, bytes]]:
    now = datetime.now(timezone.utc)
    return [
        (
            player.encode(),
            encode(
                envelope(
                    Deposit(transaction_id=uuid.uuid4(), player_id=player, amount_minor=10**9, currency=currency),
                    source="bench",
                    time=now,
                )
            ),
        )
        for player in players
        for currency in currencies
    ]
