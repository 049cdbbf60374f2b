"""A relay between the client under test and the platform: requests pass unchanged (same key, bytes, partition),
answers come back as they are, twice, or late, so the kit can show what a client does with redeliveries and retries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import orjson
from kafka import TopicPartition

from shared.kafka import kafka_consumer, producer
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS

FAULTS = ("none", "duplicate-answer", "late-answer")


@dataclass
class Seen:
    """What went through the relay for one request id."""

    fault: str
    requests: list[tuple[int, bytes | None, dict[str, bytes]]] = field(default_factory=list)  # partition, key, headers
    answer_ids: list[str] = field(default_factory=list)
    held: list[tuple[int, bytes | None, bytes, list]] = field(default_factory=list)


def request_id_of(value: bytes | None) -> str | None:
    try:
        data = orjson.loads(value or b"null").get("data")
        return str(data.get("request_id")) if isinstance(data, dict) else None
    except (orjson.JSONDecodeError, AttributeError):
        return None


class Relay:
    """Forwards `<relay>spin.requests` to `<platform>spin.requests` and answers back, with the fault of the moment."""

    def __init__(self, bootstrap: str, platform_prefix: str, relay_prefix: str, out: str = SPIN_EVENTS) -> None:
        # `out`: the answer topic the client under test reads (spin.events or an operator's spin.answers.<O>); the
        # relay takes every answer from the platform's spin.events.
        self.topics = {
            "in": relay_prefix + SPIN_REQUESTS,
            "up": platform_prefix + SPIN_REQUESTS,
            "answers": platform_prefix + SPIN_EVENTS,
            "out": relay_prefix + out,
        }
        self.fault = "none"  # for request ids seen from now on
        self.seen: dict[str, Seen] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.error: BaseException | None = None
        self.producer = producer(bootstrap, client_id="reelstream-conformance-relay", linger_ms=0)
        self.consumer = kafka_consumer(
            bootstrap,
            group_id=None,
            enable_auto_commit=False,
            client_id="reelstream-conformance-relay",
            isolation_level="read_committed",
            fetch_max_wait_ms=50,
        )
        tps = [
            TopicPartition(topic, p)
            for topic in (self.topics["in"], self.topics["answers"])
            for p in sorted(self.consumer.partitions_for_topic(topic) or ())
        ]
        assert len(tps) > 2, f"relay topics missing: {self.topics}"
        self.consumer.assign(tps)
        self.consumer.seek_to_end(*tps)
        for tp in tps:
            self.consumer.position(tp)  # resolved now: whatever comes after this is relayed
        self.thread = threading.Thread(target=self._run, name="conformance-relay", daemon=True)
        self.thread.start()

    def snapshot(self, request_id: str, since_request: int = 0) -> Seen | None:
        """A copy of what went through for the id, from its `since_request`-th request on (one step's share)."""
        with self.lock:
            seen = self.seen.get(request_id)
            if seen is None:
                return None
            return Seen(seen.fault, seen.requests[since_request:], list(seen.answer_ids), list(seen.held))

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        self.consumer.close(autocommit=False)
        self.producer.close(timeout=10)

    def _run(self) -> None:
        try:
            while not self.stopping.is_set():
                for tp, records in self.consumer.poll(timeout_ms=100).items():
                    handle: Callable = self._request if tp.topic == self.topics["in"] else self._answer
                    for record in records:
                        handle(record)
                self.producer.flush(timeout=10)
        except BaseException as error:  # noqa: BLE001 - reported by verify as the relay's failure, then re-raised
            self.error = error
            raise

    def _request(self, record) -> None:
        request_id = request_id_of(record.value) or f"unreadable@{record.partition}/{record.offset}"
        with self.lock:
            seen = self.seen.setdefault(request_id, Seen(self.fault))
            seen.requests.append((record.partition, record.key, dict(record.headers or [])))
            release = seen.held if seen.fault == "late-answer" and len(seen.requests) >= 2 else []
            seen.held = [] if release else seen.held
        self._send(self.topics["up"], record.partition, record.key, record.value, record.headers)
        for partition, key, value, headers in release:  # the first answer, after the client's retry
            self._send(self.topics["out"], partition, key, value, headers)

    def _answer(self, record) -> None:
        request_id = request_id_of(record.value)
        with self.lock:
            seen = self.seen.get(request_id or "")
            if seen is None:
                return  # not a request that came through the relay
            event_id = str(orjson.loads(record.value).get("id"))
            seen.answer_ids.append(event_id)
            if seen.fault == "late-answer" and len(seen.requests) < 2:
                seen.held.append((record.partition, record.key, record.value, record.headers))
                return
        copies = 2 if seen.fault == "duplicate-answer" else 1
        for _ in range(copies):
            self._send(self.topics["out"], record.partition, record.key, record.value, record.headers)

    def _send(self, topic: str, partition: int, key, value, headers) -> None:
        self.producer.send(topic, key=key, value=value, partition=partition, headers=list(headers or []))
