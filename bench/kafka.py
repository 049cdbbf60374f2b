"""Kafka baselines on the local broker: raw produce/consume, a decode-validate-encode loop, round-trip latency.
Later benchmarks (wallet, jackpot, spins) call `measure_baselines()` in their own run and quote ratios against it."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from shared.config import load_settings
from shared.kafka import (
    AIOKAFKA_CONSUMER_SAFETY,
    AIOKAFKA_PRODUCER_SAFETY,
    admin_client,
    aio_consumer,
    aio_producer,
    consumer,
    producer,
)

PARTITIONS = 6  # as the player-keyed topics
CONSUME_TIMEOUT_S = 120
Transform = Callable[[bytes], bytes]


def sample_records(count: int) -> list[tuple[bytes, bytes]]:
    """(key, value) pairs: spin-request CloudEvents of the contract, about 400 bytes each (the envelope is ~250),
    1,000 distinct players."""
    from shared.events import encode, envelope
    from shared.events.spin import SpinRequested

    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
    records = []
    for index in range(count):
        player = f"p-{index % 1000:06d}"
        data = SpinRequested(
            request_id=uuid.UUID(int=index + 1),
            player_id=player,
            game="rising-joker",
            stake_minor=100 + index % 7,
            currency="EUR",
            session_token=f"t{index:07d}",
        )
        records.append((player.encode(), encode(envelope(data, source="bench", time=now))))
    return records


def codec_round_trip(value: bytes) -> bytes:
    """decode (parse + validate with the project's models) then encode: the work every service does per record."""
    from shared.events import decode, encode

    return encode(decode(value))


@contextmanager
def scratch_topics(bootstrap: str, count: int, partitions: int = PARTITIONS) -> Iterator[list[str]]:
    from kafka.admin import NewTopic

    admin = admin_client(bootstrap, client_id="reelstream-bench")
    names = [f"bench-{uuid.uuid4().hex}" for _ in range(count)]
    admin.create_topics([NewTopic(name, partitions, 1) for name in names], raise_errors=True)
    try:
        yield names
    finally:
        admin.delete_topics(names)
        admin.close()


def kafka_python_produce(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]]) -> float:
    client = producer(bootstrap, client_id="bench-produce")
    started = time.perf_counter()
    for key, value in records:
        client.send(topic, key=key, value=value)
    client.flush(timeout=CONSUME_TIMEOUT_S)
    elapsed = time.perf_counter() - started
    client.close()
    return len(records) / elapsed


def _assigned(bootstrap: str, topic: str, group_id: str | None):
    """A kafka-python consumer assigned every partition from the start: no group join inside the measured time."""
    from kafka import TopicPartition

    client = consumer(bootstrap, group_id=group_id)
    partitions = [TopicPartition(topic, index) for index in range(PARTITIONS)]
    client.assign(partitions)
    client.seek_to_beginning(*partitions)
    return client


def _drain(client, count: int, on_batch: Callable[[list], None] | None = None) -> float:
    """Poll until `count` records arrived; msg/s over the whole polling, first fetch included."""
    received = 0
    started = time.perf_counter()
    deadline = time.monotonic() + CONSUME_TIMEOUT_S
    while received < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"received {received} of {count} records in {CONSUME_TIMEOUT_S} s")
        for records in client.poll(timeout_ms=500, max_records=2000).values():
            received += len(records)
            if on_batch is not None:
                on_batch(records)
    return count / (time.perf_counter() - started)


def kafka_python_consume(bootstrap: str, topic: str, count: int) -> float:
    client = _assigned(bootstrap, topic, group_id=None)
    try:
        return _drain(client, count)
    finally:
        client.close(autocommit=False)


def transform_loop(
    bootstrap: str, source: str, sink: str, count: int, transform: Transform = codec_round_trip
) -> float:
    """At-least-once loop: per polled batch, transform + produce each record, flush, then commit the batch."""
    # Manually assigned, but with a group id: offsets are committed to the group like a service does.
    reader = _assigned(bootstrap, source, group_id=f"bench-{uuid.uuid4().hex}")
    writer = producer(bootstrap, client_id="bench-loop")

    def handle(records: list) -> None:
        for record in records:
            writer.send(sink, key=record.key, value=transform(record.value))
        writer.flush(timeout=30)
        reader.commit()

    try:
        return _drain(reader, count, handle)
    finally:
        reader.close(autocommit=False)
        writer.close()


def codec_only(records: list[tuple[bytes, bytes]], transform: Transform = codec_round_trip) -> float:
    started = time.perf_counter()
    for _, value in records:
        transform(value)
    return len(records) / (time.perf_counter() - started)


async def aiokafka_produce(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]]) -> float:
    client = aio_producer(bootstrap, **AIOKAFKA_PRODUCER_SAFETY)
    await client.start()
    try:
        started = time.perf_counter()
        futures = [await client.send(topic, key=key, value=value) for key, value in records]
        await asyncio.gather(*futures)
        return len(records) / (time.perf_counter() - started)
    finally:
        await client.stop()


async def aiokafka_consume(bootstrap: str, topic: str, count: int) -> float:
    from aiokafka import TopicPartition

    client = aio_consumer(bootstrap=bootstrap, **AIOKAFKA_CONSUMER_SAFETY)
    await client.start()
    partitions = [TopicPartition(topic, index) for index in range(PARTITIONS)]
    client.assign(partitions)
    await client.seek_to_beginning(*partitions)
    try:
        received = 0
        started = time.perf_counter()
        deadline = time.monotonic() + CONSUME_TIMEOUT_S
        while received < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"received {received} of {count} records in {CONSUME_TIMEOUT_S} s")
            for records in (await client.getmany(timeout_ms=500, max_records=2000)).values():
                received += len(records)
        return count / (time.perf_counter() - started)
    finally:
        await client.stop()


def percentiles_ms(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return {"p50_ms": round(pick(0.50), 3), "p99_ms": round(pick(0.99), 3), "max_ms": round(ordered[-1] * 1000, 3)}


def kafka_python_round_trip(bootstrap: str, topic: str, value: bytes, samples: int) -> dict[str, float]:
    """Sequential produce (acks=all, linger 0) → consume of one record on a 1-partition topic; p50/p99."""
    from kafka import TopicPartition

    writer = producer(bootstrap, client_id="bench-latency", linger_ms=0)
    reader = consumer(bootstrap, group_id=None, fetch_max_wait_ms=500)
    partition = TopicPartition(topic, 0)
    reader.assign([partition])
    reader.seek_to_end(partition)
    reader.position(partition)  # resolve the lazy seek now, or it would skip the first record produced below
    took = []
    try:
        for _ in range(samples):
            started = time.perf_counter()
            writer.send(topic, value=value).get(timeout=10)
            got = 0
            deadline = time.monotonic() + 10
            while not got:
                if time.monotonic() > deadline:
                    raise TimeoutError("a produced record did not come back within 10 s")
                got = sum(len(batch) for batch in reader.poll(timeout_ms=100).values())
            took.append(time.perf_counter() - started)
    finally:
        reader.close(autocommit=False)
        writer.close()
    return percentiles_ms(took)


async def aiokafka_round_trip(bootstrap: str, topic: str, value: bytes, samples: int) -> dict[str, float]:
    from aiokafka import TopicPartition

    writer = aio_producer(bootstrap, **{**AIOKAFKA_PRODUCER_SAFETY, "linger_ms": 0})
    reader = aio_consumer(bootstrap=bootstrap, **AIOKAFKA_CONSUMER_SAFETY)
    await writer.start()
    await reader.start()
    partition = TopicPartition(topic, 0)
    reader.assign([partition])
    await reader.seek_to_end(partition)
    await reader.position(partition)  # resolve the lazy seek before the first produce
    took = []
    try:
        for _ in range(samples):
            started = time.perf_counter()
            await writer.send_and_wait(topic, value=value)
            await asyncio.wait_for(reader.getone(), timeout=10)
            took.append(time.perf_counter() - started)
    finally:
        await reader.stop()
        await writer.stop()
    return percentiles_ms(took)


def _median_of(repeats: int, measure: Callable[[], float]) -> dict[str, object]:
    runs = [measure() for _ in range(repeats)]
    return {"msg_per_s": round(statistics.median(runs)), "runs": [round(run) for run in runs]}


def measure_baselines(
    bootstrap: str,
    messages: int = 20_000,
    repeats: int = 3,
    latency_samples: int = 500,
    transform: Transform = codec_round_trip,
) -> dict[str, object]:
    """Every Kafka baseline of this machine, measured now (median of `repeats` runs for throughputs)."""
    records = sample_records(messages)
    sizes = [len(value) for _, value in records]
    results: dict[str, object] = {
        "messages": messages,
        "repeats": repeats,
        "partitions": PARTITIONS,
        "value_bytes_median": statistics.median(sizes),
    }
    with scratch_topics(bootstrap, 3 * repeats) as topics:
        # Each produce run fills its own topic; consume runs then read the first one (exactly `messages` records).
        kp, aio, sinks = topics[:repeats], topics[repeats : 2 * repeats], topics[2 * repeats :]
        kp_next, aio_next, sink_next = iter(kp), iter(aio), iter(sinks)
        results["kafka_python_produce"] = _median_of(
            repeats, lambda: kafka_python_produce(bootstrap, next(kp_next), records)
        )
        results["kafka_python_consume"] = _median_of(repeats, lambda: kafka_python_consume(bootstrap, kp[0], messages))
        results["aiokafka_produce"] = _median_of(
            repeats, lambda: asyncio.run(aiokafka_produce(bootstrap, next(aio_next), records))
        )
        results["aiokafka_consume"] = _median_of(
            repeats, lambda: asyncio.run(aiokafka_consume(bootstrap, aio[0], messages))
        )
        results["codec_only"] = _median_of(repeats, lambda: codec_only(records, transform))
        results["consume_decode_encode_produce"] = _median_of(
            repeats, lambda: transform_loop(bootstrap, kp[0], next(sink_next), messages, transform)
        )
        with scratch_topics(bootstrap, 2, partitions=1) as (latency_kp, latency_aio):
            results["kafka_python_round_trip"] = kafka_python_round_trip(
                bootstrap, latency_kp, records[0][1], latency_samples
            )
            results["aiokafka_round_trip"] = asyncio.run(
                aiokafka_round_trip(bootstrap, latency_aio, records[0][1], latency_samples)
            )
        results["latency_samples"] = latency_samples
    return results


_ROWS = (
    ("kafka_python_produce", "kafka-python produce (acks=all, idempotent)"),
    ("kafka_python_consume", "kafka-python consume"),
    ("aiokafka_produce", "aiokafka produce (acks=all, idempotent)"),
    ("aiokafka_consume", "aiokafka consume"),
    ("codec_only", "decode+validate+encode, no Kafka (1 core)"),
    ("consume_decode_encode_produce", "consume → decode → validate → encode → produce"),
)


def print_table(results: dict[str, object], console: Console) -> None:
    table = Table("measure", "msg/s (median)", "runs")
    for key, label in _ROWS:
        row = results[key]
        table.add_row(label, f"{row['msg_per_s']:,}", ", ".join(f"{run:,}" for run in row["runs"]))
    console.print(table)
    latency = Table("round trip produce→consume", "p50 ms", "p99 ms", "max ms")
    for key, label in (("kafka_python_round_trip", "kafka-python"), ("aiokafka_round_trip", "aiokafka")):
        row = results[key]
        latency.add_row(label, str(row["p50_ms"]), str(row["p99_ms"]), str(row["max_ms"]))
    console.print(latency)


def command(
    messages: int = typer.Option(20_000, min=100, help="Records per throughput run."),
    repeats: int = typer.Option(3, min=1, help="Runs per throughput figure (the median is reported)."),
    latency_samples: int = typer.Option(500, min=10, help="Sequential round trips for the latency percentiles."),
    out: Path = typer.Option(Path("bench-results/kafka.json"), help="Where to write the JSON results."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
) -> None:
    """Kafka baselines: raw produce/consume (kafka-python, aiokafka), decode-validate-encode loop, round-trip
    latency."""
    console = Console(highlight=False, width=None if os.isatty(1) else 120)
    bootstrap = bootstrap or load_settings().kafka_bootstrap_servers
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    results = measure_baselines(bootstrap, messages, repeats, latency_samples)
    # Other processes on the machine move these figures: the 1-minute load average is kept with them.
    results["machine"] = {
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "broker": bootstrap,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print_table(results, console)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    console.print(
        f"{messages:,} records of {results['value_bytes_median']} bytes, {repeats} runs each; wrote {out} "
        f"in {results['machine']['seconds']} s",
        markup=False,
    )
