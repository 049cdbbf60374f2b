"""A read to a partition's end whose last offsets are an aborted transaction (what a killed owner leaves once its
successor's producer aborts it) ends as soon as the fetch brings them, not after a getmany timeout: every takeover
reads such a tail (shared/partition_log.py, CATCH_UP_POLL_MS)."""

from __future__ import annotations

import asyncio
import statistics
import time

from shared.kafka import aio_producer
from shared.partition_log import fold_partition
from shared.topics import WALLET_EVENTS

TRIES = 5
# The read of a marker-only tail: a consumer's start and two offset requests on a local broker, well under the
# 200 ms a getmany waited for a record that never came.
MEDIAN_MAX_S = 0.15


async def _committed_then_aborted(bootstrap: str, topic: str, group: str) -> int:
    """One committed record, then a transaction of three records aborted: the offset after the committed one."""
    producer = aio_producer(bootstrap, role="wallet", transactional_id=f"{group}-markers-p0")
    await producer.start()
    try:
        async with producer.transaction():
            meta = await (await producer.send(topic, b"kept", key=b"k", partition=0))
        await producer.begin_transaction()
        for _ in range(3):
            await producer.send(topic, b"aborted", key=b"k", partition=0)
        await producer.abort_transaction()
    finally:
        await producer.stop()
    return meta.offset + 1


def test_a_tail_of_aborted_records_and_markers_is_read_without_waiting(kafka_bootstrap, fresh_prefix):
    topic = fresh_prefix + WALLET_EVENTS
    after_kept = asyncio.run(_committed_then_aborted(kafka_bootstrap, topic, fresh_prefix + "reelstream-wallet"))

    async def read_tail() -> tuple[list[int], int, float]:
        folded: list[int] = []
        started = time.perf_counter()
        end = await fold_partition(
            kafka_bootstrap, topic, 0, lambda r: folded.append(r.offset), after_kept, 30, role="wallet"
        )
        return folded, end, time.perf_counter() - started

    reads = [asyncio.run(read_tail()) for _ in range(TRIES)]
    for folded, end, _ in reads:
        assert folded == [], "an aborted record was folded"
        assert end > after_kept + 3, "the aborted transaction and its marker are not past the committed record"
    median = statistics.median(seconds for _, _, seconds in reads)
    print(f"marker-only tail read in {median * 1000:.0f} ms (median of {TRIES})")
    assert median <= MEDIAN_MAX_S, f"a tail of markers took {median:.3f} s to read: a getmany waited for a record"
