"""Read raw event topics from the earliest offsets to the end offsets captured at start (own consumer, no group),
through aiokafka, whose batches unpack in C (docs/snapshots.md, "The audit: where its time goes")."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aiokafka import AIOKafkaConsumer, TopicPartition

from services.audit.core.collect import RawRecord
from shared.invariant import invariant
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, aio_consumer
from shared.records import provenance_problems

AUDITED_TOPICS = ("spin.events", "spin.journal", "wallet.events", "jackpot.events", "wallet.seamless")
MAX_POLL_RECORDS = 20_000
# No record for this long while a partition is short of its captured end offset means the broker is gone.
STALL_LIMIT_S = 60
METADATA_LIMIT_S = 30
T = TypeVar("T")


class StartsMismatch(ValueError):
    """Resume positions that do not fit the topics as they are (another partition count, past an end or a start)."""


def read_topics(
    bootstrap: str,
    prefix: str = "",
    topics: tuple[str, ...] = AUDITED_TOPICS,
    progress: Callable[[int, int], None] | None = None,
    starts: dict[tuple[str, int], int] | None = None,
) -> tuple[list[RawRecord], dict[tuple[str, int], int]]:
    """Every record of `topics` (contract names) up to the end offsets captured now, partition by partition in order;
    the topics that `starts` {(contract topic, partition): offset} names (a checkpoint's positions) from there, the
    others from the beginning.

    No consumer group: every partition of the topics is assigned and nothing is committed, so an audit never moves
    anyone's offsets. Returns the records and the captured end offsets {(contract topic, partition): next offset}.
    """
    records, _, ends = _blocking(_read(bootstrap, prefix, topics, progress, starts, None))
    return records, ends


def read_checked(
    bootstrap: str,
    prefix: str = "",
    topics: tuple[str, ...] = AUDITED_TOPICS,
    progress: Callable[[int, int], None] | None = None,
    starts: dict[tuple[str, int], int] | None = None,
) -> tuple[list[RawRecord], list[str | None], dict[tuple[str, int], int]]:
    """`read_topics` with each record's provenance problem (`shared.records.provenance_problems`, in the records'
    order), checked batch by batch as they arrive: the hashing runs while the broker sends the next fetch."""
    nodes: dict = {}
    return _blocking(
        _read(bootstrap, prefix, topics, progress, starts, lambda batch: provenance_problems(batch, nodes))
    )


def _blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end from synchronous code, on a thread of its own when this one runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _read(
    bootstrap: str, prefix: str, topics: tuple[str, ...], progress, starts, check
) -> tuple[list, list, dict]:
    consumer = aio_consumer(
        *[prefix + name for name in topics],
        bootstrap=bootstrap,
        role="auditor",
        group_id=None,
        client_id="reelstream-audit",
        **{**AIOKAFKA_CONSUMER_SAFETY, "enable_auto_commit": False},
    )
    await consumer.start()
    try:
        partitions = await _partitions(consumer, prefix, topics)
        ends = await consumer.end_offsets(partitions)
        firsts = await consumer.beginning_offsets(partitions)
        resumed = {name for name, _ in starts or {}}
        # A consumer without a group starts each partition at its first offset (`auto_offset_reset=earliest`); a seek
        # there would drop the fetches already under way and ask for the offsets again.
        fresh = [tp for tp in partitions if tp.topic[len(prefix) :] not in resumed]
        elsewhere = [tp for tp in fresh if await consumer.position(tp) != firsts[tp]]
        if elsewhere:
            await consumer.seek_to_beginning(*elsewhere)
        if resumed:
            kept = [tp for tp in partitions if tp.topic[len(prefix) :] in resumed]
            firsts = {**firsts, **_resume(consumer, kept, prefix, starts, firsts, ends)}
        total = sum(ends[p] - firsts[p] for p in partitions)
        records, checked = await _drain(consumer, ends, prefix, total, progress, check)
        return records, checked, {(p.topic[len(prefix) :], p.partition): ends[p] for p in partitions}
    finally:
        await consumer.stop()


def _resume(consumer: AIOKafkaConsumer, partitions: list, prefix: str, starts: dict, firsts: dict, ends: dict) -> dict:
    """Seek each partition to its resume position, refusing positions the topics cannot have."""
    named = {(tp.topic[len(prefix) :], tp.partition): tp for tp in partitions}
    if set(named) != set(starts):
        missing, extra = sorted(set(named) - set(starts)), sorted(set(starts) - set(named))
        raise StartsMismatch(f"the topics' partitions differ from the checkpoint's (new {missing}, gone {extra})")
    for name, tp in named.items():
        if not firsts[tp] <= starts[name] <= ends[tp]:
            raise StartsMismatch(
                f"{name[0]}[{name[1]}] holds offsets {firsts[tp]}..{ends[tp]}, the checkpoint resumes at "
                f"{starts[name]} (topic recreated or truncated)"
            )
        consumer.seek(tp, starts[name])
    return {tp: starts[name] for name, tp in named.items()}


async def _partitions(consumer: AIOKafkaConsumer, prefix: str, topics: tuple[str, ...]) -> list[TopicPartition]:
    """Every partition of the topics, once the consumer (subscribed without a group) has them all assigned."""
    present = await consumer.topics()
    for name in topics:
        invariant(prefix + name in present, f"topic {prefix + name} does not exist")
    deadline = time.monotonic() + METADATA_LIMIT_S
    while {tp.topic for tp in consumer.assignment()} != {prefix + name for name in topics}:
        invariant(time.monotonic() < deadline, f"the partitions of {topics} not assigned after {METADATA_LIMIT_S} s")
        await asyncio.sleep(0.02)  # bounded by the deadline: the assignment follows the consumer's metadata request
    return sorted(consumer.assignment(), key=lambda tp: (tp.topic, tp.partition))


async def _drain(consumer: AIOKafkaConsumer, ends: dict, prefix: str, total: int, progress, check) -> tuple[list, list]:
    """The records up to the end offsets, per partition in order, and what `check` (None: nothing) says of each."""
    by_partition: dict[TopicPartition, list[RawRecord]] = {tp: [] for tp in ends}
    checked: dict[TopicPartition, list] = {tp: [] for tp in ends}
    pending = {tp for tp, end in ends.items() if await consumer.position(tp) < end}
    consumer.pause(*[tp for tp in ends if tp not in pending])
    read = 0
    last_progress_at = time.monotonic()
    while pending:
        batches = await consumer.getmany(timeout_ms=500, max_records=MAX_POLL_RECORDS)
        for tp, batch in batches.items():
            if tp not in ends:  # a partition added while the audit reads: past the cut captured at start
                consumer.pause(tp)
                continue
            end, name = ends[tp], tp.topic[len(prefix) :]
            new = [
                RawRecord(name, tp.partition, m.offset, m.timestamp, m.key, m.value, tuple(m.headers))
                for m in batch
                if m.offset < end
            ]
            by_partition[tp] += new
            if check is not None:
                checked[tp] += check(new)
            read += len(new)
        for tp in list(pending):
            if await consumer.position(tp) >= ends[tp]:
                pending.discard(tp)
                consumer.pause(tp)
        if batches:
            last_progress_at = time.monotonic()
            if progress:
                progress(read, total)
        invariant(
            time.monotonic() - last_progress_at < STALL_LIMIT_S,
            f"no records for {STALL_LIMIT_S} s before the end offsets",
        )
    order = sorted(by_partition, key=lambda t: (t.topic, t.partition))
    return [r for tp in order for r in by_partition[tp]], [c for tp in order for c in checked[tp]]
