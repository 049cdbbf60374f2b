"""Spin latency for operators: from the request's broker time to its answer being handled, per game and outcome."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Histogram

from services.spin.core.book import SpinBook
from shared.events import Envelope
from shared.events.spin import SpinRejected

SPIN_SECONDS = Histogram(
    "reelstream_spin_seconds",
    "A spin from its request's broker time to its answer (settled or rejected) being written",
    ["game", "outcome"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)


def observe_answers(book: SpinBook, answers: tuple[Envelope[Any], ...]) -> None:
    """One observation per answer of a request this book knows."""
    for reply in answers:
        request_id = getattr(reply.data, "request_id", None)
        record = book.records.get(request_id) if request_id is not None else None
        if record is None:
            continue
        outcome = "rejected" if isinstance(reply.data, SpinRejected) else "settled"
        elapsed_s = max(0.0, time.time() - record.time_ms / 1000)
        SPIN_SECONDS.labels(record.game or "unknown", outcome).observe(elapsed_s)
