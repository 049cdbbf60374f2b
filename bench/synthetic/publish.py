"""Put sample (or any) envelopes on their topics with the contract's key and headers (kafka-python, acks=all)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shared import records
from shared.events import encode
from shared.kafka import producer
from bench.synthetic.samples import Sample


def publish(bootstrap: str, samples: Iterable[Sample], topic_of: Callable[[str], str]) -> int:
    """Send every sample to topic_of(sample.topic), keyed by its subject; returns how many were acknowledged."""
    kafka = producer(bootstrap, client_id="reelstream-samples", linger_ms=20, batch_size=256 * 1024)
    count = 0
    try:
        for sample in samples:
            kafka.send(
                topic_of(sample.topic),
                key=sample.envelope.key,
                value=encode(sample.envelope),
                headers=records.headers_as_owner(
                    sample.topic, "synthetic", sample.envelope.key, encode(sample.envelope)
                ),
            )
            count += 1
        kafka.flush(timeout=60)
    finally:
        kafka.close(timeout=10)
    return count
