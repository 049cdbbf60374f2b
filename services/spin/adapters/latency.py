"""Spin latency for operators: from the request's broker time to its answer being handled, per game and outcome."""

from __future__ import annotations

import time
from collections.abc import Callable
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
UNKNOWN = "unknown"


class AnswerLatency:
    """One observation per answer of a request the book knows, labelled by its game only when `known(game)`: a game
    client names any game it likes in a request (refused UNKNOWN_GAME), and a series per name would grow without
    bound. Each (game, outcome) series is looked up once (prometheus' `labels` takes a lock and builds a key)."""

    def __init__(self, known: Callable[[str], bool]) -> None:
        self.known = known
        self._series: dict[tuple[str, str], Any] = {}

    def observe(self, book: SpinBook, answers: tuple[Envelope[Any], ...]) -> None:
        for reply in answers:
            request_id = getattr(reply.data, "request_id", None)
            record = book.records.get(request_id) if request_id is not None else None
            if record is None:
                continue
            outcome = "rejected" if isinstance(reply.data, SpinRejected) else "settled"
            elapsed_s = max(0.0, time.time() - record.time_ms / 1000)
            self._series_of(record.game, outcome).observe(elapsed_s)

    def _series_of(self, game: str, outcome: str) -> Any:
        found = self._series.get((game, outcome))
        if found is not None:
            return found
        if not (game and self.known(game)):
            return SPIN_SECONDS.labels(UNKNOWN, outcome)  # never kept by a name a client chose
        found = self._series[(game, outcome)] = SPIN_SECONDS.labels(game, outcome)
        return found
