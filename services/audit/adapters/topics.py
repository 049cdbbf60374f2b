"""Read raw event topics from the earliest offsets to the end offsets captured at start (own consumer, no group)."""

from __future__ import annotations

import time
from collections.abc import Callable

from kafka import KafkaConsumer, TopicPartition

from services.audit.core.collect import RawRecord
from shared.invariant import invariant
from shared.kafka import CONSUMER_SAFETY, kafka_consumer

AUDITED_TOPICS = ("spin.events", "spin.journal", "wallet.events", "jackpot.events")
MAX_POLL_RECORDS = 2000
# No record for this long while a partition is short of its captured end offset means the broker is gone.
STALL_LIMIT_S = 60


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

    No consumer group: partitions are assigned by hand and nothing is committed, so an audit never moves anyone's
    offsets. Returns the records and the captured end offsets {(contract topic, partition): next offset}.
    """
    options = {**CONSUMER_SAFETY, "enable_auto_commit": False}
    consumer = kafka_consumer(
        bootstrap,
        role="auditor",
        group_id=None,
        client_id="reelstream-audit",
        max_poll_records=MAX_POLL_RECORDS,
        **options,
    )
    try:
        partitions = _partitions(consumer, prefix, topics)
        consumer.assign(partitions)
        ends = consumer.end_offsets(partitions)
        firsts = consumer.beginning_offsets(partitions)
        resumed = {name for name, _ in starts or {}}
        consumer.seek_to_beginning(*[tp for tp in partitions if tp.topic[len(prefix) :] not in resumed])
        if resumed:
            kept = [tp for tp in partitions if tp.topic[len(prefix) :] in resumed]
            firsts = {**firsts, **_resume(consumer, kept, prefix, starts, firsts, ends)}
        total = sum(ends[p] - firsts[p] for p in partitions)
        records = _drain(consumer, ends, prefix, total, progress)
        return records, {(p.topic[len(prefix) :], p.partition): ends[p] for p in partitions}
    finally:
        consumer.close(autocommit=False)


def _resume(consumer: KafkaConsumer, partitions: list, prefix: str, starts: dict, firsts: dict, ends: dict) -> dict:
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


def _partitions(consumer: KafkaConsumer, prefix: str, topics: tuple[str, ...]) -> list[TopicPartition]:
    found = []
    consumer.topics()  # one metadata request for every topic (else one per topic not in the cache yet)
    for name in topics:
        ids = consumer.partitions_for_topic(prefix + name)
        invariant(ids is not None and len(ids) > 0, f"topic {prefix + name} does not exist")
        found += [TopicPartition(prefix + name, partition) for partition in sorted(ids)]
    return found


def _drain(consumer: KafkaConsumer, ends: dict, prefix: str, total: int, progress) -> list[RawRecord]:
    by_partition: dict[TopicPartition, list[RawRecord]] = {tp: [] for tp in ends}
    pending = {tp for tp, end in ends.items() if consumer.position(tp) < end}
    consumer.pause(*[tp for tp in ends if tp not in pending])
    read = 0
    last_progress_at = time.monotonic()
    while pending:
        batches = consumer.poll(timeout_ms=500)
        for tp, batch in batches.items():
            for message in batch:
                if message.offset < ends[tp]:
                    by_partition[tp].append(
                        RawRecord(
                            tp.topic[len(prefix) :],
                            tp.partition,
                            message.offset,
                            message.timestamp,
                            message.key,
                            message.value,
                            tuple(message.headers or ()),
                        )
                    )
                    read += 1
        for tp in list(pending):
            if consumer.position(tp) >= ends[tp]:
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
    return [record for tp in sorted(by_partition, key=lambda t: (t.topic, t.partition)) for record in by_partition[tp]]
