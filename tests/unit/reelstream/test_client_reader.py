"""The SDK's answer reader outlives a failed poll (a broker restart, a truncated log): it reads on."""

from __future__ import annotations

import threading
import time

from kafka.errors import KafkaError

from reelstream.client import ReelstreamClient


class _Record:
    def __init__(self, value: bytes) -> None:
        self.value = value


class _Consumer:
    """Fails its first poll as a consumer under a restarting broker may, then hands out one record, then nothing."""

    def __init__(self) -> None:
        self.polls = 0

    def poll(self, timeout_ms: int):
        self.polls += 1
        if self.polls == 1:
            raise KafkaError("log truncation detected")
        if self.polls == 2:
            return {"tp": [_Record(b"answer")]}
        time.sleep(timeout_ms / 1000)
        return {}


def _reader_of(consumer: _Consumer, dispatched: list[bytes]) -> ReelstreamClient:
    client = ReelstreamClient.__new__(ReelstreamClient)  # the reader alone: no broker behind it
    client._consumer, client._lock, client._stopping = consumer, threading.Lock(), threading.Event()
    client.read_errors, client.last_read_error, client.reader_error = 0, None, None
    client._dispatch = dispatched.append
    client._reader = threading.Thread(target=client._read_answers, daemon=True)
    client._reader.start()
    return client


def test_a_failed_poll_is_tried_again_and_the_answers_after_it_are_read():
    dispatched: list[bytes] = []
    client = _reader_of(_Consumer(), dispatched)
    try:
        deadline = time.monotonic() + 5
        while not dispatched and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dispatched == [b"answer"]
        assert client.reading and client.reader_error is None
        assert client.read_errors == 1 and "log truncation" in client.last_read_error
    finally:
        client._stopping.set()
        client._reader.join(timeout=5)
    assert not client.reading
