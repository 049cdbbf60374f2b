"""A loop that is not pipelined (the jackpot, the seamless saga) commits every partition's batch of a poll before its
next poll and before it lets go of its lock, so a reader under the lock (the saga's outbox) sees committed facts
only; the partitions' transactions run side by side, so a poll over many partitions costs one commit's time, not
their sum (the saga's PlaceWager waited for the commits of every partition decided before its own)."""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager

from aiokafka import TopicPartition

from shared.input_position import Output
from shared.loop import Stateless, TransactionalLoop
from test_loop_hooks import CONFIG, RecordingProducer
from tests.support.snapshot_log import LogRecord

COMMIT_S = 0.2
PARTITIONS = (0, 1, 2, 3)


class SlowCommit(RecordingProducer):
    """A transaction whose commit takes COMMIT_S (the broker's markers, acknowledged by every replica)."""

    def __init__(self) -> None:
        super().__init__()
        self.committed_at: float | None = None

    @asynccontextmanager
    async def transaction(self):
        async with super().transaction():
            yield
            await asyncio.sleep(COMMIT_S)
            self.committed_at = time.monotonic()


class Events(Stateless[dict]):
    def decide(self, partition: int, state: dict, records: list) -> list[Output]:
        return [Output(False, b"p-1", b"e%d" % partition, [])]


def _poll(loop: TransactionalLoop) -> tuple[float, dict[int, SlowCommit]]:
    producers = {partition: SlowCommit() for partition in PARTITIONS}
    for partition in PARTITIONS:
        loop.states[partition], loop.producers[partition] = {}, producers[partition]
    polled = {TopicPartition(CONFIG.commands_topic, p): [LogRecord(b"k", b"v", [], 0, p)] for p in PARTITIONS}

    async def process() -> float:
        started = time.monotonic()
        async with loop.lock:
            await loop._process(None, polled)
        return time.monotonic() - started

    return asyncio.run(process()), producers


def test_a_poll_over_several_partitions_commits_them_side_by_side_and_all_before_it_returns():
    loop = TransactionalLoop(CONFIG, Events())
    assert not loop.config.pipelined
    took, producers = _poll(loop)
    returned = time.monotonic()
    assert all(
        producer.committed_at is not None and producer.committed_at <= returned for producer in producers.values()
    )
    assert took < 2 * COMMIT_S, f"{took:.2f} s: the partitions' commits were awaited one after another"
    assert took >= COMMIT_S
