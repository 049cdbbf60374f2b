"""Reads by hand-assigned partitions (no consumer group: positions live elsewhere) and a producer sized for dead
letters: the projector's and the ops tools' Kafka clients, one definition for both."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, admin_client, aio_consumer, aio_producer
from shared.topics import DLQ_MAX_MESSAGE_BYTES


def consumer(bootstrap: str, role: str) -> AIOKafkaConsumer:
    # No group id: partitions are assigned by hand and positions come from Postgres, never from Kafka group offsets.
    return aio_consumer(
        bootstrap=bootstrap,
        role=role,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        auto_offset_reset="earliest",
        max_partition_fetch_bytes=4 * 1024 * 1024,
        fetch_max_bytes=32 * 1024 * 1024,
        request_timeout_ms=30_000,
    )


def producer(bootstrap: str, role: str) -> AIOKafkaProducer:
    # Its dead letters may be as large as the largest record of their source topics (shared/topics.py).
    return aio_producer(
        bootstrap,
        role=role,
        **AIOKAFKA_PRODUCER_SAFETY,
        request_timeout_ms=30_000,
        max_request_size=DLQ_MAX_MESSAGE_BYTES,
    )


async def partitions_of(bootstrap: str, topics: Iterable[str], role: str) -> list[TopicPartition]:
    """Every partition of the topics (from the broker's metadata); a missing topic is an error (no auto-creation)."""
    return await asyncio.to_thread(_describe_partitions, bootstrap, list(topics), role)


def _describe_partitions(bootstrap: str, topics: list[str], role: str) -> list[TopicPartition]:
    admin = admin_client(bootstrap, client_id=f"reelstream-{role}-metadata", role=role)
    try:
        known = set(admin.list_topics())
        missing = [topic for topic in topics if topic not in known]
        if missing:
            raise RuntimeError(f"topics {missing} do not exist (run `reelstream topics create`)")
        described = {entry["name"]: entry for entry in admin.describe_topics(topics)}
        return [
            TopicPartition(topic, index)
            for topic in topics
            for index in sorted(p["partition_index"] for p in described[topic]["partitions"])
        ]
    finally:
        admin.close()
