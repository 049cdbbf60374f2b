"""Spin latency for operators: from the request's broker time to its answer being handled, per game and outcome."""

from __future__ import annotations

import time
import uuid

import orjson
from prometheus_client import Histogram

from services.spin.core.book import SpinBook
from services.spin.core.effects import Out

SPIN_SECONDS = Histogram(
    "reelstream_spin_seconds",
    "A spin from its request's broker time to its answer (settled or rejected) being written",
    ["game", "outcome"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)


def observe_answers(book: SpinBook, outputs: list[Out]) -> None:
    """One observation per answer among `outputs` (one per spin: answers are rare among the outputs)."""
    for out in outputs:
        if out.kind != "answer":
            continue
        parsed = orjson.loads(out.value)
        record = book.records.get(uuid.UUID(parsed["data"]["request_id"])) if parsed["data"].get("request_id") else None
        if record is None:
            continue
        outcome = "rejected" if parsed["type"].startswith("reelstream.spin.rejected.") else "settled"
        elapsed_s = max(0.0, time.time() - record.time_ms / 1000)
        SPIN_SECONDS.labels(record.game or "unknown", outcome).observe(elapsed_s)
