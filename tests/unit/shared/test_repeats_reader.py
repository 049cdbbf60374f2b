"""The repeat reader's one consumer under the loop's concurrency: the batches of different partitions complete at the
same time, so two read-backs may start together; each gets its own partition's records, and the consumer is started
once, before either uses it."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from shared import repeats


class _Consumer:
    """A consumer that takes a turn of the event loop to start and to read, and knows its one assigned partition."""

    def __init__(self) -> None:
        self.started = 0
        self.assigned: list = []

    async def start(self) -> None:
        await asyncio.sleep(0)
        self.started += 1

    def assign(self, partitions: list) -> None:
        self.assigned = list(partitions)


async def _read_range(consumer: _Consumer, starts: dict, ends: dict) -> dict:
    assert consumer.started == 1, "read before the consumer started"
    ((tp, offset),) = starts.items()
    await asyncio.sleep(0)
    assert consumer.assigned == [tp], "another read re-assigned the consumer mid-read"
    value = b"p%d@%d" % (tp.partition, offset)
    return {tp: [SimpleNamespace(offset=offset, key=None, value=value)]}


def test_two_partitions_read_back_at_once_each_get_their_own_records(monkeypatch):
    consumer = _Consumer()
    monkeypatch.setattr(repeats, "aio_consumer", lambda **_: consumer)
    monkeypatch.setattr(repeats, "read_range", _read_range)
    reader = repeats.Reader("broker:9092", "wallet", "wallet.events")

    async def both():
        return await asyncio.gather(reader.records(0, [5]), reader.records(1, [7]))

    first, second = asyncio.run(both())
    assert first == {5: (None, b"p0@5")} and second == {7: (None, b"p1@7")}
    assert consumer.started == 1 and reader.read == 2
