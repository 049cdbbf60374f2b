"""aiokafka for the projector: a partition-assigned consumer (no group: positions live in Postgres) and the DLQ path."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from shared import observability
from shared import records as records_module
from shared.events import DecodeError, broker_time
from services.projector.core.batch import Batch
from services.projector.core.decoding import decode_rows
from services.projector.core.mapping import RecordMeta

# The projector's own contract topics (real names come from settings.topic(...)).
SOURCE_TOPICS = ("spin.events", "spin.journal", "wallet.events", "jackpot.events", "jackpot.meters")
FETCH_MAX_RECORDS = 5_000
CONSUMER_NAME = "projector"
# Records decoded between two yields to the event loop: the pending write's next round trip waits for one chunk, so a
# chunk is kept short of a write's round trip (docs/projection.md, "Throughput", compares the chunk sizes).
DECODE_CHUNK = 25


async def seek_all(
    kafka: AIOKafkaConsumer, partitions: list[TopicPartition], positions: dict[tuple[str, int], int]
) -> None:
    fresh = []
    for tp in partitions:
        if (tp.topic, tp.partition) in positions:
            kafka.seek(tp, positions[(tp.topic, tp.partition)])
        else:
            fresh.append(tp)
    if fresh:
        await kafka.seek_to_beginning(*fresh)


def meta_of(record: Any) -> RecordMeta:
    return RecordMeta(record.topic, record.partition, record.offset, broker_time(record.timestamp))


async def fold_records(
    records: list[Any],
    dlq: AIOKafkaProducer,
    batch: Batch,
    refuse_types: frozenset[str] = frozenset(),
    pool: Executor | None = None,
    topic_prefix: str = "",
    partitions: Callable[[str], int | None] = lambda topic: None,
) -> None:
    """Decode records into the batch (in worker processes when a pool is given, else in chunks here, yielding to the
    event loop between them); send undecodable ones to `<topic>.dlq`, quarantine those their topic's owner did not
    write or that sit off their key's partition (`partitions`: a topic's partition count; the one dead letter of such
    a record: the services that skip it only alert), and wait for the acks."""
    pending = []
    untrusted: dict[int, tuple[str, str]] = {}  # index in `records` -> (code, why it is not trusted)
    for index, record in enumerate(records):
        logical = _logical(record.topic, topic_prefix)
        problem = records_module.provenance_problem(logical, record.headers, record.value, record.key)
        if problem is not None:
            untrusted[index] = (records_module.UNTRUSTED_WRITER, problem)
        elif (wrong := records_module.placement_problem(logical, record, partitions(record.topic))) is not None:
            untrusted[index] = (records_module.WRONG_PARTITION, wrong)
    trusted = [record for index, record in enumerate(records) if index not in untrusted]
    raw = [(r.topic, r.partition, r.offset, r.timestamp, r.value) for r in trusted]
    chunks = [raw[start : start + DECODE_CHUNK] for start in range(0, len(raw), DECODE_CHUNK)]
    if pool is not None:
        loop = asyncio.get_running_loop()
        results = await asyncio.gather(
            *(loop.run_in_executor(pool, decode_rows, chunk, refuse_types) for chunk in chunks)
        )
    else:
        results = []
        for chunk in chunks:
            results.append(decode_rows(chunk, refuse_types))
            await asyncio.sleep(0)  # let the previous batch's statements progress while this one decodes
    decoded = iter(item for result in results for item in result)
    for index, record in enumerate(records):  # in offset order: positions only move forwards
        logical = _logical(record.topic, topic_prefix)
        if index in untrusted:
            code, problem = untrusted[index]
            letter = records_module.dead_letter(
                logical, record.topic, record, code=code, reason=problem, consumer=CONSUMER_NAME
            )
        else:
            kind, first, second = next(decoded)
            if kind == "event":
                batch.add_rows(first, second, record.topic, record.partition, record.offset)
                continue
            if kind == "events":
                batch.add_packed(first, record.topic, record.partition, record.offset)
                continue
            letter = records_module.undecodable(
                logical, record.topic, record, DecodeError(first, second), consumer=CONSUMER_NAME
            )
        pending.append(
            await dlq.send(topic_prefix + letter.topic, value=letter.value, key=letter.key, headers=letter.headers)
        )
        observability.produced(topic_prefix + letter.topic, letter.value, letter.headers)
        batch.add_dead_letter(meta_of(record))
    if pending:
        await asyncio.gather(*pending)


def _logical(topic: str, prefix: str) -> str:
    """The contract name of a deployment's topic (the trust check and the DLQ names read contract names)."""
    return topic[len(prefix) :] if prefix and topic.startswith(prefix) else topic


def decode_pool(workers: int) -> Executor | None:
    """Worker processes for decoding (spawned, not forked: the parent runs threads); None for in-process decoding."""
    if workers <= 0:
        return None
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
