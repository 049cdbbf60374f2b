"""Waiting until committed transactions are visible to read_committed readers.

A committed transaction is visible to read_committed readers only once the coordinator has written its markers, which
happens after the producer's commit returned. A service taking over a partition fences the old producer first
(InitProducerId waits for those markers); a test that restores a fresh instance beside the live one does not, and a
restore that ran between the commit's return and its markers missed the last transaction (seen once in CI)."""

from __future__ import annotations

import asyncio

from aiokafka import TopicPartition

from shared.kafka import aio_consumer


async def transactions_decided(bootstrap: str, prefix: str, timeout_s: float = 60) -> None:
    """Wait until no partition of the prefix's topics has a transaction whose markers are still on their way: every
    partition's last stable offset has reached its high watermark."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    committed = aio_consumer(bootstrap=bootstrap, group_id=None)
    everything = aio_consumer(bootstrap=bootstrap, group_id=None, isolation_level="read_uncommitted")
    await committed.start()
    await everything.start()
    try:
        topics = [topic for topic in await committed.topics() if topic.startswith(prefix)]
        tps = [TopicPartition(topic, p) for topic in topics for p in committed.partitions_for_topic(topic) or ()]
        while (await committed.end_offsets(tps)) != (await everything.end_offsets(tps)):
            assert asyncio.get_running_loop().time() < deadline, f"transactions still undecided after {timeout_s} s"
            await asyncio.sleep(0.05)
    finally:
        await committed.stop()
        await everything.stop()
