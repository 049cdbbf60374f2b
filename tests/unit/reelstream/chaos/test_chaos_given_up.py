"""A chaos client call is given up at once when its client's answer reader has stopped (no answer can come), and
every call given up is described: what it was, how it failed, and the reader's state."""

from __future__ import annotations

import threading
import time
import uuid

from reelstream.chaos.run import ChaosPlan, ChaosReport, Load
from reelstream.client import SpinTimeout


class _Client:
    def __init__(self, reading_for: int) -> None:
        self.calls, self.reading_for = 0, reading_for
        self.read_errors, self.last_read_error, self.reader_error = 2, "KafkaError('log truncation')", None

    @property
    def reading(self) -> bool:
        return self.calls < self.reading_for

    def spin(self, request_id: uuid.UUID) -> None:
        self.calls += 1
        if not self.reading:
            self.reader_error = "KafkaError('gone')"
        raise SpinTimeout(request_id, 0.0)


def test_a_call_whose_client_stopped_reading_is_given_up_at_once_and_described():
    report = ChaosReport(plan={}, started_at="now")
    load = Load(None, ChaosPlan(checked_share=0.0), report, threading.Event())
    client, request_id = _Client(reading_for=3), uuid.uuid4()
    answer = load._retried(lambda: client.spin(request_id), time.monotonic() + 600, client, "spin", request_id)
    assert answer is None and client.calls == 3 and report.gave_up == 1 and report.retries == 3
    [call] = report.given_up
    assert call["kind"] == "spin" and call["id"] == str(request_id) and call["timeouts"] == 3
    assert call["reader"] == "stopped: KafkaError('gone')"
    assert call["reader_poll_errors"] == 2 and call["last_reader_poll_error"] == "KafkaError('log truncation')"
