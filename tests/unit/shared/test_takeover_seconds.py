"""The production takeover figure (`reelstream_takeover_seconds`): the lag probe observes, once per assignment, the
seconds from a partition's restore beginning until it is restored and its position reached the end its input had
after the restore; a partition still behind is no takeover yet."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiokafka import TopicPartition

from shared.observability import metrics
from shared.observability.process import Process

COMMANDS = TopicPartition("t.wallet.commands", 0)


@dataclass(eq=False)
class _Consumer:
    """What the probe asks of a consumer: its assignment, the ends of the log and its position."""

    position_at: int
    end: int = 10

    def assignment(self):
        return {COMMANDS}

    async def end_offsets(self, partitions):
        return {tp: self.end for tp in partitions}

    async def position(self, tp):
        return self.position_at

    def last_stable_offset(self, tp):
        return self.end

    def highwater(self, tp):
        return self.end


def _takeovers() -> tuple[float, float]:
    """(count, sum) of the `unit-takeover` service's takeover histogram."""
    found = {
        s.name: s.value
        for m in metrics.TAKEOVER_SECONDS.collect()
        for s in m.samples
        if s.labels.get("service") == "unit-takeover"
    }
    return found.get("reelstream_takeover_seconds_count", 0.0), found.get("reelstream_takeover_seconds_sum", 0.0)


def test_the_probe_observes_a_takeover_once_the_partition_caught_up_and_only_once():
    process, consumer = Process(service="unit-takeover"), _Consumer(position_at=4)
    process.consumers.add(consumer)
    process.readiness.begin([0], 0.0)
    process.readiness.finish([0], 0.0)
    before = _takeovers()
    asyncio.run(process.probe())  # measures the end (10): the position (4) is behind it
    assert _takeovers() == before
    consumer.position_at = 10
    asyncio.run(process.probe())
    count, total_s = _takeovers()
    assert count == before[0] + 1
    assert total_s - before[1] > 0
    asyncio.run(process.probe())
    assert _takeovers()[0] == count
