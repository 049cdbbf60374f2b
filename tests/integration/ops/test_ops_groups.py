"""`ops groups` counts lag as a read_committed consumer reads it. Scenario: three transactions of two records each go
to a fresh topic (each ends with a commit marker, an offset that holds no record); a group commits the offset right
after its last record, before the last marker: its lag is 0, not 1. One aborted transaction later it is still 0;
one more committed record makes it 1."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from shared.kafka import aio_producer
from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from ops.groups import groups

pytestmark = pytest.mark.integration


async def _transactions(bootstrap: str, topic: str, batches: list[tuple[int, bool]]) -> None:
    """Each (records, commit) is one transaction of that many records, committed or aborted."""
    producer = aio_producer(bootstrap, transactional_id=f"t-{uuid.uuid4().hex}", enable_idempotence=True, acks="all")
    await producer.start()
    try:
        for count, commit in batches:
            await producer.begin_transaction()
            for index in range(count):
                await producer.send_and_wait(topic, f"r{index}".encode(), partition=0)
            await (producer.commit_transaction() if commit else producer.abort_transaction())
    finally:
        await producer.stop()


def _lag(kafka_bootstrap: str, group: str) -> tuple[int, int, bool]:
    rows, described = groups(kafka_bootstrap, only=group)
    assert [d["group_id"] for d in described] == [group]
    (row,) = rows
    return row.lag, row.end, row.exact


def test_transaction_markers_are_not_lag(kafka_bootstrap, fresh_topic, fresh_group, make_consumer):
    topic, group = fresh_topic(partitions=1), fresh_group()
    asyncio.run(_transactions(kafka_bootstrap, topic, [(2, True), (2, True), (2, True)]))
    # Offsets: 0,1 records, 2 marker, 3,4 records, 5 marker, 6,7 records, 8 marker; end (stable) = 9.
    member = make_consumer(group_id=group)
    member.commit({TopicPartition(topic, 0): OffsetAndMetadata(8, "", -1)})
    member.close(autocommit=False)
    assert _lag(kafka_bootstrap, group) == (0, 9, True)

    asyncio.run(_transactions(kafka_bootstrap, topic, [(3, False)]))
    lag, end, exact = _lag(kafka_bootstrap, group)
    assert (lag, exact) == (0, True) and end > 9  # aborted records are not read by read_committed

    asyncio.run(_transactions(kafka_bootstrap, topic, [(1, True)]))
    assert _lag(kafka_bootstrap, group)[0] == 1
