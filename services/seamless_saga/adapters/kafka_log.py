"""wallet.seamless on Kafka: the saga's facts appended in one transaction per decision, keyed by player (the
default partitioner's murmur2, as every player-keyed topic), and folded back from the start on restore."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.events import encode
from shared.events.envelope import Envelope
from shared.invariant import invariant
from shared import assigned
from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer
from shared.topics import WALLET_SEAMLESS

from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.state import SeamlessBook

WRITER = "wallet"
RESTORE_BATCH_MAX = 1_000


class KafkaSeamlessLog:
    """Appends to `topic` (the physical name of wallet.seamless) with a transactional producer, started by `open`."""

    def __init__(self, bootstrap: str, topic: str, transactional_id: str) -> None:
        self.topic = topic
        self.producer = aio_producer(
            bootstrap, role=WRITER, transactional_id=transactional_id, **AIOKAFKA_PRODUCER_SAFETY
        )

    async def open(self) -> KafkaSeamlessLog:
        await self.producer.start()
        return self

    async def close(self) -> None:
        await self.producer.stop()

    async def append(self, events: tuple[Envelope[Any], ...]) -> None:
        async with self.producer.transaction():
            for event in events:
                value, key = encode(event), event.data.player_id.encode()
                headers = records.signed_headers(WRITER, WALLET_SEAMLESS, key, value)
                await self.producer.send(self.topic, value, key=key, headers=headers)


async def restore(bootstrap: str, topic: str, core: SeamlessCore, book: SeamlessBook) -> int:
    """Fold every committed fact of `topic` (all its partitions) into `book`; the number folded. A record its owner
    did not write is never folded: restoring stops on it (a forged call would otherwise be made)."""
    # Committed facts only, from the start, hand-assigned (no group): a restore reads to the end and stops.
    consumer = assigned.consumer(bootstrap, role=WRITER)
    partitions = await assigned.partitions_of(bootstrap, [topic], role=WRITER)
    await consumer.start()
    try:
        return await _fold_all(consumer, partitions, core, book)
    finally:
        await consumer.stop()


async def _fold_all(consumer, partitions: list, core: SeamlessCore, book: SeamlessBook) -> int:
    consumer.assign(partitions)
    await consumer.seek_to_beginning(*partitions)
    ends = await consumer.end_offsets(partitions)
    folded = 0
    while [tp for tp in partitions if await consumer.position(tp) < ends[tp]]:
        batches = await consumer.getmany(*partitions, timeout_ms=500, max_records=RESTORE_BATCH_MAX)
        for record in (record for batch in batches.values() for record in batch):
            event, problem = records.trusted_event(WALLET_SEAMLESS, record)
            invariant(problem is None, f"{record.topic} at {record.partition}/{record.offset}: {problem}")
            core.evolve(book, event)
            folded += 1
    return folded
