"""The projector's partition guard: a record of a player- or network-keyed topic off its key's murmur2 partition is its
one dead letter (WRONG_PARTITION), never a row. A fake producer stands in for the DLQ."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from services.projector.adapters.kafka_io import fold_records
from services.projector.core.batch import Batch
from shared import records
from shared.dead_letters import origin_of
from shared.partitioning import partition_for


@dataclass
class Record:
    topic: str
    partition: int
    key: bytes
    value: bytes = b'{"not": "an event"}'
    offset: int = 0
    timestamp: int = 1_700_000_000_000
    headers: list = field(default_factory=lambda: records.headers_for("spin"))


class FakeDlq:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes, list]] = []

    async def send(self, topic: str, *, value: bytes, key: bytes | None, headers: list) -> asyncio.Future:
        self.sent.append((topic, value, headers))
        done = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done


def _fold(record: Record) -> tuple[FakeDlq, Batch]:
    dlq, batch = FakeDlq(), Batch()
    asyncio.run(fold_records([record], dlq, batch, topic_prefix="pre.", partitions=lambda topic: 6))
    return dlq, batch


def test_a_spin_event_off_its_players_partition_is_dead_lettered_wrong_partition():
    home = partition_for(b"p-1", 6)
    dlq, batch = _fold(Record("pre.spin.events", (home + 2) % 6, b"p-1"))
    [(topic, _, headers)] = dlq.sent
    origin = origin_of(headers)
    assert topic == "pre.spin.events.dlq"
    assert origin.code == records.WRONG_PARTITION and f"hashes to partition {home}" in origin.reason
    assert batch.dead_letters == 1


def test_on_its_players_partition_the_same_record_is_judged_by_its_content_not_its_place():
    dlq, _ = _fold(Record("pre.spin.events", partition_for(b"p-1", 6), b"p-1"))
    [(_, _, headers)] = dlq.sent
    assert origin_of(headers).code == "UNDECODABLE"


def test_a_network_keyed_record_off_its_networks_partition_is_dead_lettered_wrong_partition():
    home = partition_for(b"diamond-mystery", 6)
    dlq, _ = _fold(
        Record("pre.jackpot.events", (home + 1) % 6, b"diamond-mystery", headers=records.headers_for("jackpot"))
    )
    [(_, _, headers)] = dlq.sent
    assert origin_of(headers).code == records.WRONG_PARTITION


def test_on_its_networks_partition_a_network_keyed_record_is_judged_by_its_content():
    home = partition_for(b"diamond-mystery", 6)
    dlq, _ = _fold(Record("pre.jackpot.events", home, b"diamond-mystery", headers=records.headers_for("jackpot")))
    [(_, _, headers)] = dlq.sent
    assert origin_of(headers).code == "UNDECODABLE"
