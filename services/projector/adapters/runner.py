"""The projector loop: fetch → decode (DLQ the undecodable) → one transaction of rows + positions, resuming from the
positions stored in Postgres after a crash, a Postgres outage or a schema switch."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

import asyncpg
from aiokafka import TopicPartition

from services.projector.adapters import kafka_io, single_writer
from shared import assigned, observability
from services.projector.adapters.schema import prepare_live
from services.projector.adapters.store import BatchWriter, Positions, SchemaSwitched, load_positions
from services.projector.core.batch import Batch

log = logging.getLogger("reelstream.projector")
# Postgres being away is ridden out: reconnect with a capped backoff, forever (a limit per attempt, not in total).
RECONNECT_DELAY_S = (0.2, 0.5, 1.0, 2.0)
CONNECT_TIMEOUT_S = 5
COMMAND_TIMEOUT_S = 60
# A batch allocates ~40 container objects per event and keeps them until its COPY: with the default thresholds
# (700, 10, 10) the cyclic collector re-scans them over and over — measured: half of decode + mapping's CPU. The
# projector runs with a young generation of 200,000 objects instead (cycles are still collected, just less often):
# a young collection costs time per object still alive (the batches in flight), so its cost per event falls as the
# threshold rises (docs/projection.md, "Throughput").
GC_THRESHOLDS = (200_000, 20, 100)
PG_DOWN = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
)


class StoppedStandingBy(Exception):
    """Stopped while another projector held the single-writer lock: nothing was written."""


@dataclass
class Progress:
    events: int = 0
    new_events: int = 0
    rows: int = 0
    dead_letters: int = 0
    reconnects: int = 0
    positions: Positions = field(default_factory=dict)


Hook = Callable[[Progress], Awaitable[None] | None]


@dataclass
class ProjectorConfig:
    bootstrap: str
    database_url: str
    topics: tuple[str, ...]
    target_schema: str | None = None  # None: the live schema named in projector_control.active
    refuse_types: frozenset[str] = frozenset()
    max_records: int = kafka_io.FETCH_MAX_RECORDS
    crash_prefix: str = "projector"
    topic_prefix: str = ""  # the deployment's prefix: the trust check reads logical topic names
    decode_workers: int = 0  # worker processes decoding beside the writer (0: decode in this process)
    partitions: tuple[tuple[str, int], ...] | None = (
        None  # known already (a rebuild's end offsets): no metadata look-up
    )
    # A rebuild's fill: the target schema has no readers and a crashed rebuild is never resumed (its schema is never
    # switched to), so its commits need not wait for the WAL flush — the switch's own (synchronous) commit flushes
    # the WAL up to it, fill included.
    asynchronous_commit: bool = False


async def connect(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S, command_timeout=COMMAND_TIMEOUT_S)


def reached(positions: Positions, until: Positions) -> bool:
    return all(positions.get(key, 0) >= end for key, end in until.items() if end > 0)


class Projector:
    """One projector instance over all partitions of its topics (scale-out would split partitions between instances)."""

    def __init__(self, config: ProjectorConfig, *, schema_ready: Awaitable[object] | None = None) -> None:
        """schema_ready: the target schema is being created right now (empty): consume from the beginning of every
        partition at once and wait for it only before the first write (start-up overlaps the DDL)."""
        self.config = config
        self._schema_ready = schema_ready
        self.until: Positions | None = None
        self._read: Positions = {}  # next offset of every partition already fetched (written or not)
        self.progress = Progress()
        self.schema: str | None = config.target_schema
        self._conn: asyncpg.Connection | None = None
        self._writer: BatchWriter | None = None
        self._stop = asyncio.Event()

    async def _open_pg(self) -> None:
        for attempt in range(1_000_000):
            try:
                self._conn = await connect(self.config.database_url)
                if self.config.target_schema is None and not await single_writer.hold(
                    self._conn, single_writer.lock_key(self.config.topic_prefix), self._stop
                ):
                    raise StoppedStandingBy()
                if self.config.asynchronous_commit:
                    await self._conn.execute("SET synchronous_commit = off")
                if self.config.target_schema is None:
                    self.schema = await prepare_live(self._conn, datetime.now(timezone.utc))
                self._writer = BatchWriter(
                    self._conn,
                    self.schema,
                    live=self.config.target_schema is None,
                    crash_prefix=self.config.crash_prefix,
                )
                return
            except PG_DOWN as error:
                await self._close_pg()
                delay = RECONNECT_DELAY_S[min(attempt, len(RECONNECT_DELAY_S) - 1)]
                log.warning("postgres unavailable (%s); retrying in %.1f s", type(error).__name__, delay)
                await asyncio.sleep(delay)

    async def _close_pg(self) -> None:
        if self._conn is not None:
            self._conn.terminate()
        self._conn = None

    async def _resume(self, kafka, partitions: list[TopicPartition]) -> None:
        """Seek every partition to the next offset stored with the rows (the only source of truth for positions)."""
        await self._target_created()
        positions = await load_positions(self._conn, self.schema)
        self.progress.positions = dict(positions)
        self._read = {}
        await kafka_io.seek_all(kafka, partitions, positions)

    async def run(
        self,
        stop: asyncio.Event,
        *,
        until: Positions | None = None,
        on_ready: Hook | None = None,
        on_batch: Hook | None = None,
        until_end: bool = False,
    ) -> Progress:
        """Project until `stop` is set, or until every position reaches `until` (a rebuild's end offsets);
        until_end=True: until the end offsets this consumer reads once its partitions are assigned (`self.until`)."""
        self._stop = stop
        with batch_gc():
            try:
                return await self._run(stop, until, on_ready, on_batch, until_end)
            except StoppedStandingBy:
                return self.progress

    async def _run(
        self,
        stop: asyncio.Event,
        until: Positions | None,
        on_ready: Hook | None,
        on_batch: Hook | None,
        until_end: bool,
    ) -> Progress:
        kafka = assigned.consumer(self.config.bootstrap, role="projector")
        dlq = assigned.producer(self.config.bootstrap, role="projector")
        pool = kafka_io.decode_pool(self.config.decode_workers)
        observability.watch(kafka)
        try:
            # Positions from Postgres: ready once caught up from there.
            async with observability.restoring() as restored:
                partitions = await self._start(kafka, dlq, pool)
                restored.extend(tp.partition for tp in partitions)
            if until_end:
                ends = await kafka.end_offsets(partitions)
                until = {(tp.topic, tp.partition): offset for tp, offset in ends.items()}
            self.until = until
            if on_ready:
                await _call(on_ready, self.progress)
            # Pipelined: batch N+1 is decoded while batch N's transaction runs in Postgres (another core); the writes
            # themselves stay strictly one after another on one connection, each with its positions.
            pending: asyncio.Task | None = None
            while not stop.is_set() and not (until is not None and reached(self.progress.positions, until)):
                if (
                    pending is not None
                    and until is not None
                    and reached({**self.progress.positions, **self._read}, until)
                ):
                    # Everything up to `until` is fetched: wait for the last write, not for a fetch that cannot come.
                    await self._finish(pending, kafka, partitions, on_batch)
                    pending = None
                    continue
                fetched = await kafka.getmany(timeout_ms=200, max_records=self.config.max_records)
                observability.consumed(fetched)
                records = [record for tp in sorted(fetched, key=str) for record in fetched[tp]]
                batch = Batch()
                if records:
                    with observability.handler_timer():
                        await kafka_io.fold_records(
                            records,
                            dlq,
                            batch,
                            self.config.refuse_types,
                            pool,
                            self.config.topic_prefix,
                            lambda topic: len(kafka.partitions_for_topic(topic) or ()),
                        )
                        batch.seal()  # its folds, while the previous batch's transaction still runs
                    self._read.update(batch.positions)
                resumed = False
                if pending is not None:
                    resumed = not await self._finish(pending, kafka, partitions, on_batch)
                    pending = None
                if not records:
                    if until is not None:
                        await self._skip_gaps(kafka, until)
                    continue
                if resumed:
                    continue  # the consumer was re-positioned from Postgres: this batch is re-read from there
                pending = asyncio.create_task(self._write(batch, time.perf_counter()))
                # getmany returns buffered records without yielding and the decode of the next batch would run a
                # whole chunk first: let the write send its BEGIN now (each of its round trips waits for a chunk).
                await asyncio.sleep(0)
            if pending is not None:
                await self._finish(pending, kafka, partitions, on_batch)
        finally:
            await self._close_pg()
            await kafka.stop()
            await dlq.stop()
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        return self.progress

    async def _start(self, kafka, dlq, pool) -> list[TopicPartition]:
        """Consumer, DLQ producer, partition metadata and the Postgres connection at once (none waits for another);
        then the consumer is assigned every partition and positioned."""
        started = await asyncio.gather(
            self._partitions(), kafka.start(), dlq.start(), self._open_pg(), return_exceptions=True
        )  # all settled before the caller's `finally` stops them
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome
        partitions = started[0]
        kafka.assign(partitions)  # fetches their leaders now (end offsets need them)
        if pool is not None:  # spawn and import in the workers now, not inside the first batch
            await asyncio.get_running_loop().run_in_executor(pool, kafka_io.decode_rows, [], frozenset())
        if self._schema_ready is not None:
            await kafka.seek_to_beginning(*partitions)  # a schema being created holds no positions yet
        else:
            await self._resume_or_reconnect(kafka, partitions)
        return partitions

    async def _partitions(self) -> list[TopicPartition]:
        if self.config.partitions:
            return [TopicPartition(topic, index) for topic, index in self.config.partitions]
        return await assigned.partitions_of(self.config.bootstrap, self.config.topics, role="projector")

    async def _skip_gaps(self, kafka, until: Positions) -> None:
        """A partition whose log ends in records we never see (transaction markers, compaction) counts as read once
        the consumer's fetch position passed the end offset."""
        for (topic, partition), end in until.items():
            if self.progress.positions.get((topic, partition), 0) < end:
                if await kafka.position(TopicPartition(topic, partition)) >= end:
                    self.progress.positions[(topic, partition)] = end

    async def _write(self, batch: Batch, polled_at: float) -> tuple[Batch, int]:
        await self._target_created()  # done after the first batch: returns at once
        async with observability.commit_timer("postgres"):
            new_events = await self._writer.write(batch)
        observability.batch_done(polled_at)
        return batch, new_events

    async def _target_created(self) -> None:
        if self._schema_ready is None:
            return
        try:
            await self._schema_ready
        except PG_DOWN as error:  # not an outage to ride out here: the schema this fill writes into was never made
            raise RuntimeError(f"the target schema {self.schema} could not be created: {error!r}") from error

    async def _finish(
        self, pending: asyncio.Task, kafka, partitions: list[TopicPartition], on_batch: Hook | None
    ) -> bool:
        """Wait for a batch's transaction; False when it did not commit and the consumer was re-positioned."""
        try:
            batch, new_events = await pending
        except SchemaSwitched as switched:
            log.info("live schema switched to %s; resuming from its positions", switched)
            self.schema = str(switched)
            self._writer = BatchWriter(self._conn, self.schema, live=True, crash_prefix=self.config.crash_prefix)
            await self._resume_or_reconnect(kafka, partitions)
            return False
        except PG_DOWN as error:
            # The commit may or may not have happened: the positions in Postgres say which, so re-read them.
            log.warning("postgres lost mid-batch (%s): reconnecting and resuming from stored positions", error)
            self.progress.reconnects += 1
            await self._close_pg()
            await self._open_pg()
            await self._resume_or_reconnect(kafka, partitions)
            return False
        self.progress.positions.update(batch.positions)
        self.progress.events += batch.events
        self.progress.new_events += new_events
        self.progress.rows += batch.row_count
        self.progress.dead_letters += batch.dead_letters
        if on_batch:
            await _call(on_batch, self.progress)
        return True

    async def _resume_or_reconnect(self, kafka, partitions: list[TopicPartition]) -> None:
        while True:
            try:
                await self._resume(kafka, partitions)
                return
            except PG_DOWN:
                self.progress.reconnects += 1
                await self._close_pg()
                await self._open_pg()


_gc_users = 0
_gc_saved = gc.get_threshold()


@contextlib.contextmanager
def batch_gc():
    """GC_THRESHOLDS while at least one projector runs in this process; the thresholds from before afterwards."""
    global _gc_users, _gc_saved
    if _gc_users == 0:
        _gc_saved = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
    _gc_users += 1
    try:
        yield
    finally:
        _gc_users -= 1
        if _gc_users == 0:
            gc.set_threshold(*_gc_saved)


async def _call(hook: Hook, progress: Progress) -> None:
    result = hook(progress)
    if asyncio.iscoroutine(result):
        await result
