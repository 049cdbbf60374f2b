"""The takeover watch's read of which partitions had work, against a real broker: committed records are found, an
aborted transaction's records and markers are not, and a second read of the same partitions reads them again (a
kafka-python assignment keeps a partition paused by the first)."""

from __future__ import annotations

import asyncio
import time

from kafka import TopicPartition

from reelstream.chaos.takeover import Committed
from shared.kafka import READER_SAFETY, aio_producer, kafka_consumer
from shared.topics import WALLET_EVENTS

READ_MAX_S = 2.0  # a look of the watch; the read gives up after ten seconds


async def _write(bootstrap: str, topic: str, group: str) -> None:
    """Partition 0: five committed records; 1: an aborted transaction of three; 2: one committed record."""
    producer = aio_producer(bootstrap, role="wallet", transactional_id=f"{group}-watch-p0")
    await producer.start()
    try:
        async with producer.transaction():
            for _ in range(5):
                await producer.send(topic, b"kept", partition=0)
        await producer.begin_transaction()
        for _ in range(3):
            await producer.send(topic, b"aborted", partition=1)
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send(topic, b"kept", partition=2)
    finally:
        await producer.stop()


def test_which_partitions_had_work_on_a_real_broker(kafka_bootstrap, fresh_prefix):
    topic = fresh_prefix + WALLET_EVENTS
    asyncio.run(_write(kafka_bootstrap, topic, fresh_prefix + "reelstream-wallet"))
    committed = Committed.__new__(Committed)  # the watch's reader alone: no group, no carrying topics
    committed.reader = kafka_consumer(kafka_bootstrap, group_id=None, **READER_SAFETY)
    try:
        tps = [TopicPartition(topic, partition) for partition in range(3)]
        ends = committed.reader.end_offsets(tps)
        everything = {tp: (0, ends[tp]) for tp in tps}
        for _ in range(2):
            started = time.monotonic()
            assert committed.with_records(everything) == {tps[0], tps[2]}
            assert time.monotonic() - started < READ_MAX_S
        after_the_record = {tps[2]: (ends[tps[2]] - 1, ends[tps[2]])}  # its commit marker alone
        assert committed.with_records(after_the_record) == set()
    finally:
        committed.reader.close(autocommit=False)
