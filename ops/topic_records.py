"""A topic's records as they are, from its beginning to the end offsets seen at the start of the read: done as soon as
the reader reaches those offsets, with no idle wait for records that may still come."""

from __future__ import annotations

import time

from kafka import TopicPartition

from shared.kafka import kafka_consumer


def records_to_end(bootstrap: str, topic: str, settle_s: float = 1.0, isolation_level: str = "read_committed") -> list:
    """Every record of `topic` (key, value, headers) up to the end offsets seen now; `isolation_level`
    "read_uncommitted" includes what open and aborted transactions wrote."""
    reader = kafka_consumer(bootstrap, group_id=None, enable_auto_commit=False, isolation_level=isolation_level)
    try:
        tps = [TopicPartition(topic, p) for p in reader.partitions_for_topic(topic) or ()]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        ends = reader.end_offsets(tps)
        found = []
        deadline = time.monotonic() + 60
        while any(reader.position(tp) < ends[tp] for tp in tps) and time.monotonic() < deadline:
            for records in reader.poll(timeout_ms=int(settle_s * 1000)).values():
                found.extend(r for r in records if r.offset < ends[TopicPartition(r.topic, r.partition)])
        return found
    finally:
        reader.close(autocommit=False)
