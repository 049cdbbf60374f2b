"""The observability of this process: its service name, readiness, the consumers it probes, and the few calls the
loops make (one line each at their call sites, so a loop being rewritten can take them along)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from shared import dead_letters
from shared.observability import metrics
from shared.observability.logs import configure_logging
from shared.observability.readiness import Readiness
from shared.observability.tracing import configure_tracing

log = logging.getLogger("reelstream.observability")
PROBE_INTERVAL_S = 0.5
_RESTORE_PAUSE_S = float(os.environ.get("REELSTREAM_TEST_RESTORE_PAUSE_S", "0"))
# Types whose records are refusals with a `code` in their data (read only for these: they are rare).
_REJECTION_MARKS = (
    b"reelstream.spin.rejected.",
    b"reelstream.wallet.command-rejected.",
    b"reelstream.jackpot.claim-rejected.",
    b"reelstream.jackpot.pool-command-rejected.",
)
# Dead-letter reasons as labels: the header's reason is free text, its code (or else its field) is bounded.
_DLQ_REASON_HEADERS = (dead_letters.CODE, dead_letters.FIELD)


@dataclass
class Process:
    service: str = "unknown"
    readiness: Readiness = field(default_factory=Readiness)
    # Weak: a runner's consumer is probed while the runner lives (tests run many runners in one process).
    consumers: weakref.WeakSet = field(default_factory=weakref.WeakSet)
    lag_labels: set[tuple[str, str]] = field(default_factory=set)  # (topic, partition) with a lag series now
    gauges: list[Callable[[], None]] = field(default_factory=list)  # refreshed at each scrape (liabilities, ...)

    @property
    def ready(self) -> bool:
        return self.readiness.ready(self._assignment())

    def _assignment(self) -> list[tuple[str, int]]:
        return [(tp.topic, tp.partition) for consumer in self.consumers for tp in consumer.assignment()]

    async def probe(self) -> None:
        """Consumer lag per partition (series of partitions no longer assigned removed), catch-up, readiness."""
        labelled: set[tuple[str, str]] = set()
        for consumer in list(self.consumers):
            labelled |= await self._probe_consumer(consumer)
        for topic, partition in self.lag_labels - labelled:
            metrics.CONSUMER_LAG.remove(self.service, topic, partition)
        self.lag_labels = labelled
        for seconds in self.readiness.taken_over(self._assignment(), time.perf_counter()):
            metrics.TAKEOVER_SECONDS.labels(self.service).observe(seconds)
        metrics.READY.labels(self.service).set(1 if self.ready else 0)

    async def _probe_consumer(self, consumer) -> set[tuple[str, str]]:
        assignment = sorted(consumer.assignment())
        labelled = set()
        keys = [(tp.topic, tp.partition) for tp in assignment]
        unmeasured = set(self.readiness.unmeasured(keys))
        if unmeasured:
            ends = await consumer.end_offsets([tp for tp in assignment if (tp.topic, tp.partition) in unmeasured])
            for tp, end in ends.items():
                self.readiness.targets[(tp.topic, tp.partition)] = end
        for tp in assignment:
            position = await consumer.position(tp)
            end = consumer.last_stable_offset(tp)
            if end is None:
                end = consumer.highwater(tp)
            if end is not None:
                metrics.CONSUMER_LAG.labels(self.service, tp.topic, str(tp.partition)).set(max(0, end - position))
                labelled.add((tp.topic, str(tp.partition)))
            self.readiness.observe((tp.topic, tp.partition), position)
        return labelled

    def refresh_gauges(self) -> None:
        for refresh in self.gauges:
            refresh()

    async def run_probe(self, interval_s: float = PROBE_INTERVAL_S) -> None:
        while True:
            try:
                await self.probe()
            except Exception as error:  # noqa: BLE001 - a failed probe (broker away, rebalance) is retried next tick
                log.debug("probe failed: %r", error)
            await asyncio.sleep(interval_s)


PROCESS = Process()


def setup(service: str, environ: Mapping[str, str] = os.environ) -> Process:
    """In a service's main(): JSON logs, tracing (when configured), the service label of every series."""
    PROCESS.service = service
    configure_logging(service, environ.get("REELSTREAM_LOG_LEVEL", "INFO"))
    configure_tracing(service, environ)
    metrics.READY.labels(service).set(0)
    return PROCESS


def watch(consumer) -> None:
    """Probe this consumer's lag and catch-up (its assignment decides readiness)."""
    PROCESS.consumers.add(consumer)


@contextlib.asynccontextmanager
async def restoring(partitions: Iterable[int] = ()):
    """Around restoring assigned partitions: not ready meanwhile; the duration goes to the restore histogram.
    Yields the list of partitions, for a caller that learns them while restoring (the projector) to extend.
    Test-only: REELSTREAM_TEST_RESTORE_PAUSE_S lengthens every restore by that much (like the crash hooks, unset in
    production), so a test can watch /ready during one."""
    partitions = list(partitions)
    started = time.perf_counter()
    PROCESS.readiness.begin(partitions, started)
    try:
        if _RESTORE_PAUSE_S:
            await asyncio.sleep(_RESTORE_PAUSE_S)
        yield partitions
    except BaseException:
        PROCESS.readiness.abort(partitions)  # cancelled by a rebalance (or failed): no longer restoring these
        raise
    metrics.RESTORE_SECONDS.labels(PROCESS.service).observe(time.perf_counter() - started)
    PROCESS.readiness.finish(partitions, started)


def revoked(partitions: Iterable[int]) -> None:
    PROCESS.readiness.revoke(list(partitions))


_records_in: dict[str, Any] = {}
_records_out: dict[str, Any] = {}


def consumed(batch: Mapping[Any, list]) -> None:
    """A polled batch ({TopicPartition: records}): records in per topic."""
    for tp, records in batch.items():
        counter = _records_in.get(tp.topic) or _records_in.setdefault(
            tp.topic, metrics.RECORDS_IN.labels(PROCESS.service, tp.topic)
        )
        counter.inc(len(records))


def produced(topic: str, value: bytes | None, headers=()) -> None:
    """One record written: records out per topic, and a refusal's code or a dead letter's reason. Per record on
    the hot path: the counter is looked up once per topic, the bytes searched once for a refusal."""
    counter = _records_out.get(topic) or _records_out.setdefault(
        topic, metrics.RECORDS_OUT.labels(PROCESS.service, topic)
    )
    counter.inc()
    if topic.endswith(".dlq"):
        found = dict(headers or ())
        reason = next((found[name] for name in _DLQ_REASON_HEADERS if found.get(name)), b"unknown")
        metrics.DEAD_LETTERS.labels(PROCESS.service, reason.decode(errors="replace")[:64]).inc()
    elif value and value.find(b"rejected.", 0, 400) >= 0 and any(mark in value[:400] for mark in _REJECTION_MARKS):
        code = orjson.loads(value).get("data", {}).get("code", "unknown")
        metrics.REJECTIONS.labels(PROCESS.service, str(code)[:64]).inc()


def alert(logger: logging.Logger, kind: str, text: str, *args: Any) -> None:
    """An integrity alert: an `alert: ...` error line (what operators grep and ship) and the alerts counter by kind."""
    logger.error("alert: " + text, *args)
    metrics.ALERTS.labels(PROCESS.service, kind).inc()


def pool_levels(meters) -> None:
    """Published jackpot meters (envelopes of JackpotMeter): the pool level gauges."""
    for meter in meters:
        data = meter.data
        metrics.POOL_LEVEL_MINOR.labels(data.pool_id, data.network_id, data.currency).set(data.level_minor)


@contextlib.contextmanager
def handler_timer():
    started = time.perf_counter()
    yield
    metrics.HANDLER_SECONDS.labels(PROCESS.service).observe(time.perf_counter() - started)


@contextlib.asynccontextmanager
async def commit_timer(store: str = "kafka"):
    started = time.perf_counter()
    yield
    metrics.COMMIT_SECONDS.labels(PROCESS.service, store).observe(time.perf_counter() - started)


def batch_done(polled_at: float) -> None:
    """A batch polled at `polled_at` (time.perf_counter()) has its outputs written."""
    metrics.BATCH_SECONDS.labels(PROCESS.service).observe(time.perf_counter() - polled_at)
