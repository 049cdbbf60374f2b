"""Batches the broker accepts but the client libraries cannot read as they are, through the real broker.

Scenario: a writer puts three records in one batch, the middle one with a header name of bytes ff fe (not UTF-8), then
a zstd batch of two records that inflates past MAX_INFLATED_BYTES, then one plain record. An aiokafka consumer and a
kafka-python consumer, both built by shared/kafka.py, read the partition from its start: no exception, the three
records in order with the name's bytes intact, the bomb as one placeholder at its last offset, the plain record after
it, and each consumer's position past everything.
"""

from __future__ import annotations

import struct
import time

from aiokafka import TopicPartition as AiokafkaPartition
from kafka import TopicPartition as KafkaPartition

from shared.headers import REFUSED_BATCH
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, CONSUMER_SAFETY, aio_consumer, kafka_consumer, producer
from shared.record_batches import MAX_INFLATED_BYTES

_DEADLINE_S = 30
_BOMB_REASON = f"zstd batch inflates past {MAX_INFLATED_BYTES} bytes".encode()


class Raw(str):
    """A header name kafka-python's producer writes as these exact bytes (its builder encodes each name itself)."""

    def __new__(cls, raw: bytes) -> "Raw":
        name = super().__new__(cls, "raw")
        name.raw = raw
        return name

    def encode(self, *_, **__) -> bytes:
        return self.raw


def write_the_partition(bootstrap: str, topic: str) -> None:
    """Offsets 0-2: one batch with ff fe in the middle; 3-4: the zstd bomb, one batch; 5: a plain record."""
    one_batch = {"linger_ms": 60_000, "batch_size": 64 << 20, "max_request_size": 64 << 20}
    plain = producer(bootstrap, client_id="record-batches-test", **one_batch)
    try:
        for key, headers in ((b"before", [("a", b"1")]), (b"bad", [(Raw(b"\xff\xfe"), b"2")]), (b"after", [])):
            plain.send(topic, key=key, value=b"v-" + key, headers=headers, partition=0)
        plain.flush(timeout=20)  # the three leave together, in one batch
    finally:
        plain.close(timeout=10)
    zstd = producer(bootstrap, client_id="record-batches-test", compression_type="zstd", **one_batch)
    try:
        half = bytes(MAX_INFLATED_BYTES // 2 + 1)
        for _ in range(2):
            zstd.send(topic, key=None, value=half, partition=0)
        zstd.flush(timeout=30)
        zstd.send(topic, key=b"plain", value=b"v-plain", partition=0)
        zstd.flush(timeout=20)
    finally:
        zstd.close(timeout=10)


def expect_the_partition(records: list) -> None:
    assert [(r.offset, r.key) for r in records] == [
        (0, b"before"),
        (1, b"bad"),
        (2, b"after"),
        (4, None),
        (5, b"plain"),
    ]
    names = [[name.encode("utf-8", "surrogateescape") for name, _ in r.headers] for r in records[:3]]
    assert names == [[b"a"], [b"\xff\xfe"], []]
    bomb = records[3]
    assert list(bomb.headers) == [(REFUSED_BATCH, _BOMB_REASON)]
    assert len(bomb.value) < 1024 * 1024
    assert struct.unpack_from(">qi", bomb.value) == (3, len(bomb.value) - 12)  # the batch as fetched: offset, length


async def test_an_aiokafka_consumer_reads_past_a_bad_header_name_and_a_zstd_bomb(kafka_bootstrap, fresh_topic):
    topic = fresh_topic()
    write_the_partition(kafka_bootstrap, topic)
    tp = AiokafkaPartition(topic, 0)
    reader = aio_consumer(bootstrap=kafka_bootstrap, group_id=None, **AIOKAFKA_CONSUMER_SAFETY)
    await reader.start()
    try:
        reader.assign([tp])
        await reader.seek_to_beginning(tp)
        records: list = []
        deadline = time.monotonic() + _DEADLINE_S
        while len(records) < 5 and time.monotonic() < deadline:
            records.extend((await reader.getmany(tp, timeout_ms=500)).get(tp, []))
        expect_the_partition(records)
        assert await reader.position(tp) == 6
    finally:
        await reader.stop()


def test_a_kafka_python_consumer_reads_past_a_bad_header_name_and_a_zstd_bomb(kafka_bootstrap, fresh_topic):
    topic = fresh_topic()
    write_the_partition(kafka_bootstrap, topic)
    tp = KafkaPartition(topic, 0)
    reader = kafka_consumer(kafka_bootstrap, group_id=None, **CONSUMER_SAFETY)
    try:
        reader.assign([tp])
        reader.seek_to_beginning(tp)
        records: list = []
        deadline = time.monotonic() + _DEADLINE_S
        while len(records) < 5 and time.monotonic() < deadline:
            records.extend(reader.poll(timeout_ms=500).get(tp, []))
        expect_the_partition(records)
        assert reader.position(tp) == 6
    finally:
        reader.close(autocommit=False)
