"""A restore's read of a snapshots partition costs about the newest snapshots, not every snapshot ever written.

Compaction would keep two generations per partition, but only in closed segments and only once the log cleaner has
run: the active segment (`segment.ms` ten minutes) holds every snapshot written meanwhile, at the wallet's pace one
every 30 s. Scenario: many snapshots of a partition written the way the loop writes them (each in a transaction, as
the wallet principal with its signing key), with nothing cleaned; the restore's read hands the collector only the
tail holding the newest two valid ones, and finds the newest.
"""

from __future__ import annotations

import asyncio
import os
import time

from shared import snapshots
from shared.kafka import aio_producer
from shared.partition_log import fold_partition
from shared.topics import WALLET_SNAPSHOTS

WRITTEN = 40
STATE_BYTES = 600_000


def _image(generation: int) -> snapshots.Image:
    return snapshots.Image(os.urandom(STATE_BYTES - 8) + generation.to_bytes(8, "big"), 1)


async def _write(bootstrap: str, topic: str, group: str, count: int) -> None:
    producer = aio_producer(bootstrap, role="wallet", transactional_id=f"{group}-probe-p0")
    await producer.start()
    try:
        for generation in range(count):
            image = _image(generation)
            encoded = snapshots.encode("wallet", WALLET_SNAPSHOTS, 0, generation % 2, image, generation, generation)
            async with producer.transaction():
                for key, value, headers in encoded:
                    await producer.send(topic, value, key=key, headers=headers, partition=0)
    finally:
        await producer.stop()


def test_a_restore_reads_the_newest_snapshots_not_every_one_written(kafka_bootstrap, fresh_prefix, monkeypatch):
    topic = fresh_prefix + WALLET_SNAPSHOTS
    group = fresh_prefix + "reelstream-wallet"
    asyncio.run(_write(kafka_bootstrap, topic, group, WRITTEN))
    per_snapshot = len(snapshots.encode("wallet", WALLET_SNAPSHOTS, 0, 0, _image(0), 0, 0))

    async def read() -> tuple[snapshots.Collector, float]:
        started = time.perf_counter()
        collector = await snapshots.read(kafka_bootstrap, topic, WALLET_SNAPSHOTS, 0, "wallet")
        return collector, time.perf_counter() - started

    async def everything() -> int:
        records: list[int] = []
        await fold_partition(kafka_bootstrap, topic, 0, lambda r: records.append(r.offset), role="wallet")
        return len(records)

    in_partition = asyncio.run(everything())
    assert in_partition == WRITTEN * per_snapshot, "the probe's snapshots were compacted: the scenario did not happen"
    # The first window as configured, and one too small for two snapshots (widened until it holds them).
    for tail in (snapshots.TAIL_RECORDS, 2):
        monkeypatch.setattr(snapshots, "TAIL_RECORDS", tail)
        collector, seconds = asyncio.run(read())
        newest, older = collector.newest_first()
        assert (newest.output_next, older.output_next) == (WRITTEN - 1, WRITTEN - 2)
        assert newest.state[-8:] == (WRITTEN - 1).to_bytes(8, "big")
        print(f"first window {tail}: {collector.records_read} of {in_partition} records in {seconds * 1000:.0f} ms")
        # Two snapshots and the one the window starts in, each with its commit marker, a window widened ×4 past them.
        assert collector.records_read <= max(tail, 4 * 3 * (per_snapshot + 1)) < in_partition / 2, "read far beyond"
        assert collector.refused == []
