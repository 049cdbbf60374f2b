"""zstd on the topics only the platform reads, through the real broker.

Scenario: one transactional producer of the loop's kind, compressing by topic, writes the same records to a
journal-like topic (the platform's own) and to an events-like topic (clients read it) in one transaction. The broker
takes the zstd batches; an aiokafka consumer and a kafka-python consumer (the services, faust's monitor, the projector,
the audit and the ops tools read through these two) read both topics back, committed, byte for byte; the broker holds
the journal's records in far fewer bytes than the events'.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from aiokafka import TopicPartition as AiokafkaPartition
from kafka import TopicPartition as KafkaPartition
from kafka.admin import NewTopic

from bench.topic_bytes import log_sizes
from shared.kafka import (
    AIOKAFKA_CONSUMER_SAFETY,
    AIOKAFKA_PRODUCER_SAFETY,
    CONSUMER_SAFETY,
    aio_consumer,
    aio_producer,
    compress_by_topic,
    kafka_consumer,
)
from shared.topic_admin import delete_topics
from shared.topics import SPIN_EVENTS, SPIN_JOURNAL, compressed_by_producers

_DEADLINE_S = 30
_RECORDS = 40


def _values() -> list[bytes]:
    """JSON much like a settled spin's: repeated field names and symbol words, as the topics hold them."""
    window = ",".join(f'["joker","cherry","bell","seven","lemon"][{n % 5}]' for n in range(15))
    return [f'{{"type":"reelstream.spin.settled.v1","n":{n},"window":[{window}]}}'.encode() for n in range(_RECORDS)]


async def _write_in_one_transaction(bootstrap: str, topics: list[str]) -> None:
    writer = aio_producer(bootstrap, transactional_id=f"compression-{uuid.uuid4().hex}", **AIOKAFKA_PRODUCER_SAFETY)
    compress_by_topic(writer, compressed_by_producers)
    await writer.start()
    try:
        async with writer.transaction():
            for value in _values():
                for topic in topics:
                    await writer.send(topic, value=value, key=b"p-1", partition=0)
    finally:
        await writer.stop()


async def _read_with_aiokafka(bootstrap: str, topic: str) -> list[bytes]:
    tp = AiokafkaPartition(topic, 0)
    reader = aio_consumer(bootstrap=bootstrap, group_id=None, **AIOKAFKA_CONSUMER_SAFETY)
    await reader.start()
    try:
        reader.assign([tp])
        await reader.seek_to_beginning(tp)
        read: list[bytes] = []
        deadline = time.monotonic() + _DEADLINE_S
        while len(read) < _RECORDS and time.monotonic() < deadline:
            read.extend(record.value for record in (await reader.getmany(tp, timeout_ms=500)).get(tp, []))
        return read
    finally:
        await reader.stop()


def _read_with_kafka_python(bootstrap: str, topic: str) -> list[bytes]:
    tp = KafkaPartition(topic, 0)
    reader = kafka_consumer(bootstrap, group_id=None, **CONSUMER_SAFETY)
    try:
        reader.assign([tp])
        reader.seek_to_beginning(tp)
        read: list[bytes] = []
        deadline = time.monotonic() + _DEADLINE_S
        while len(read) < _RECORDS and time.monotonic() < deadline:
            read.extend(record.value for record in reader.poll(timeout_ms=500).get(tp, []))
        return read
    finally:
        reader.close(autocommit=False)


@pytest.fixture
def journal_and_events(kafka_bootstrap, kafka_admin) -> Iterator[tuple[str, str]]:
    """A fresh prefix's spin.journal and spin.events, one partition each, deleted after the test."""
    prefix = f"t{uuid.uuid4().hex[:12]}."
    names = (prefix + SPIN_JOURNAL, prefix + SPIN_EVENTS)
    kafka_admin.create_topics([NewTopic(name, 1, 1) for name in names], raise_errors=True)
    yield names
    delete_topics(kafka_bootstrap, list(names))


async def test_the_platforms_topics_are_written_zstd_and_read_back_by_both_libraries_the_clients_topics_plain(
    kafka_bootstrap, journal_and_events
):
    journal, events = journal_and_events
    await _write_in_one_transaction(kafka_bootstrap, [journal, events])

    for topic in (journal, events):
        assert await _read_with_aiokafka(kafka_bootstrap, topic) == _values()
        assert _read_with_kafka_python(kafka_bootstrap, topic) == _values()
    sizes = log_sizes(kafka_bootstrap, journal.removesuffix(SPIN_JOURNAL))
    assert sizes[(journal, 0)] * 4 < sizes[(events, 0)]
