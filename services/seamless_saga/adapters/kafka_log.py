"""wallet.seamless on Kafka: the saga's facts appended in one transaction per decision, keyed by player (the
default partitioner's murmur2, as every player-keyed topic), and folded back from the start on restore."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.events import encode
from shared.events.envelope import Envelope
from shared import assigned
from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer
from shared.partition_log import fold_partition
from shared.snapshots import TailFold
from shared.topics import SEAMLESS_SAGA, WALLET_SEAMLESS

from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.state import SeamlessBook

# Its principal and its signing writer: the owner of wallet.seamless and wallet.seamless-calls (shared/records.py).
WRITER = SEAMLESS_SAGA


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


async def restore(
    bootstrap: str, topic: str, core: SeamlessCore, book: SeamlessBook, partition: int | None = None
) -> int:
    """Fold every committed fact of `topic` (all its partitions, or `partition` alone) into `book`; the number folded.
    A record its owner did not write is never folded: it is quarantined with an alert, as every service's own facts
    are on restore (shared/snapshots.TailFold), and the restore goes on."""
    folded, _ = await restore_with_inputs(bootstrap, topic, core, book, partition)
    return folded


async def restore_with_inputs(
    bootstrap: str, topic: str, core: SeamlessCore, book: SeamlessBook, partition: int | None = None
) -> tuple[int, dict[str, int]]:
    """`restore`, and the input positions the last fact carrying them recorded (shared/input_position.py)."""
    if partition is None:
        numbers = [tp.partition for tp in await assigned.partitions_of(bootstrap, [topic], role=WRITER)]
    else:
        numbers = [partition]
    folded, inputs = 0, {}
    for number in sorted(numbers):
        # Committed facts only, from the start, no group: a restore reads to the end offset seen when it starts.
        folding = TailFold(book, lambda state, record: _fold(core, state, record), topic, number, [])
        await fold_partition(bootstrap, topic, number, folding, role=WRITER)
        folded, inputs = folded + folding.folded, folding.inputs or inputs
    return folded, inputs


def _fold(core: SeamlessCore, book: SeamlessBook, record: Any) -> str | None:
    """One record folded into `book`; why it was quarantined instead, or None."""
    event, problem = records.trusted_event(WALLET_SEAMLESS, record)
    if event is None:
        return problem
    core.evolve(book, event)
    return None
