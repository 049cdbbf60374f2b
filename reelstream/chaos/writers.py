"""Hostile records onto a deployment's topics, each as the least privileged principal allowed to write its topic
(`PRINCIPALS`), in batches compressed with the codec it names: one kafka-python producer per principal and codec."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kafka.errors import KafkaError

from reelstream.chaos.fuzz import PRINCIPALS, Hostile
from shared.kafka import producer

# kafka-python checks a record's uncompressed size against this before compressing it: room for the largest bomb.
MAX_REQUEST_BYTES = 32 * 1024 * 1024
# What kafka-python refuses before the broker sees the record: a record with neither key nor value (a ValueError; the
# protocol, the Java client and librdkafka allow one), or one past its size check.
REFUSED = (KafkaError, ValueError)
FLUSH_S = 120.0
SEND_ALONE_S = 30.0


@dataclass
class Written:
    taken: list[Hostile] = field(default_factory=list)
    refused: list[tuple[Hostile, str]] = field(default_factory=list)  # with the error the broker (or client) gave


class HostileWriter:
    """`topic` maps a logical topic name to the deployment's."""

    def __init__(self, bootstrap: str, topic: Callable[[str], str]) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self._producers: dict[tuple[str, str | None], object] = {}

    def _producer(self, item: Hostile):
        role = PRINCIPALS[item.topic]
        made = self._producers.get((role, item.codec))
        if made is None:
            # No idempotence: the broker refuses some hostile batches whole (a keyless record on a compacted topic),
            # and a refused batch must not disturb the sequence numbers of the next; a duplicate is as hostile.
            made = producer(
                self.bootstrap,
                client_id=f"fuzz-{role}-{item.codec or 'none'}",
                role=role,
                compression_type=item.codec,
                enable_idempotence=False,
                max_request_size=MAX_REQUEST_BYTES,
            )
            self._producers[(role, item.codec)] = made
        return made

    def _send(self, item: Hostile):
        return self._producer(item).send(
            self.topic(item.topic), key=item.key, value=item.value, headers=list(item.headers), partition=item.partition
        )

    def write(self, items: Sequence[Hostile]) -> Written:
        """Write every record, flushed; a record whose batch the broker refused is sent again alone, so only what the
        broker refuses by itself counts as refused."""
        written, sent, again = Written(), [], []
        for item in items:
            try:
                sent.append((item, self._send(item)))
            except REFUSED as error:
                written.refused.append((item, type(error).__name__))
        for made in self._producers.values():
            made.flush(FLUSH_S)
        for item, future in sent:
            (written.taken if future.succeeded() else again).append(item)
        for item in again:
            try:
                self._send(item).get(timeout=SEND_ALONE_S)
                written.taken.append(item)
            except REFUSED as error:
                written.refused.append((item, type(error).__name__))
        return written

    def close(self) -> None:
        for made in self._producers.values():
            made.close(10)
        self._producers.clear()

    def __enter__(self) -> HostileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
