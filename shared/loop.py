"""The one transactional loop of the money path: `<x>.commands` → decide per partition → one Kafka transaction per
partition and polled batch holding the batch's events (on the command's partition number), its dead letters and its
input position.

A transactional producer per input partition (`transactional_id` = group + partition): a restarted or new owner
fences its predecessor and aborts whatever it left open, so a crash anywhere in a batch leaves nothing visible to
read_committed readers and the batch is decided again from the committed state. The input position commits with the
events (shared/input_position.py); only a batch without events commits its offset inside the transaction. Any failure
in a batch or a restore stops the process unacked: the in-memory state may be ahead of what Kafka committed, and the
restarted process rebuilds it from the events. Correctness still rests on deterministic, idempotent decisions.

Pipelined (the wallet): while a partition's batch is being committed (broker round trips), the next polled batch is
decided (CPU); transactions of one partition stay strictly in order, at most one waits behind the one in flight.
Not pipelined (the jackpot): each batch is decided and committed under `lock`, so whoever holds the lock (the meter
publisher) sees only committed state. A service provides its state per partition through `PartitionService`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition

from shared import observability, snapshots
from shared.crash import crash_point
from shared.input_position import GROUP_COMMIT_INTERVAL_S, InputPositions, Output, carries_position, with_position
from shared.kafka import (
    AIOKAFKA_CONSUMER_SAFETY,
    AIOKAFKA_PRODUCER_SAFETY,
    FetchPacing,
    aio_consumer,
    aio_producer,
    group_membership,
    service_fetch_options,
)

log = logging.getLogger("reelstream.loop")
EXIT_STOPPED = 70
S = TypeVar("S")


@dataclass(frozen=True)
class LoopConfig:
    bootstrap: str
    commands_topic: str
    events_topic: str
    dlq_topic: str
    group_id: str
    service: str  # the client id suffix and the prefix of the crash hooks ("wallet" -> "wallet.mid_transaction")
    batch_max: int = 2000
    poll_ms: int = 50
    session_timeout_ms: int | None = None  # None: shared.kafka.group_membership's (environment or 10 s)
    pipelined: bool = False
    # One producer writes one partition: aiokafka sends one batch per partition per request, so the default 16 KB
    # batch would turn a 2,000-event transaction (~1.6 MB) into ~100 sequential round trips. Below the 1 MB limit.
    producer_batch_bytes: int = 512 * 1024
    # `<service>.snapshots` (physical name; shared/snapshots.py): a snapshot the service's `snapshot_image` hands
    # over right after deciding a batch goes into that batch's transaction. None: no snapshots.
    snapshots_topic: str | None = None


@dataclass
class LoopStats:
    records: int = 0
    batches: int = 0
    events: int = 0
    dead_letters: int = 0
    decide_s: float = 0.0  # CPU-bound part of the batches
    commit_s: float = 0.0  # waiting for earlier batches to commit (back-pressure)
    # time.perf_counter() when the first batch started and the latest batch was committed (for benchmarks).
    first_batch_s: float = 0.0
    last_commit_s: float = 0.0
    snapshots_written: int = 0


@dataclass(frozen=True)
class Restored(Generic[S]):
    """A partition's state as its events left it, the input position they recorded (None: none), and a report."""

    state: S
    commands_offset: int | None
    report: Any = None
    # Where the partition's snapshots stand (shared/snapshots.py); None: no snapshots for it (no topic, or none kept).
    cursor: snapshots.Cursor | None = None


class PartitionService(Protocol[S]):
    """What a service gives the loop: its restore, its decisions, and what it does around commits."""

    async def restore(self, partition: int) -> Restored[S]: ...

    def decide(self, partition: int, state: S, records: list[Any]) -> list[Output]:
        """The batch's outputs (events and dead letters), the state evolved by its events."""

    def committed(self, partition: int, state: S, next_offset: int, event_offsets: list[int]) -> None:
        """The batch's transaction committed; `event_offsets` are the events' offsets in the events topic."""

    def quiet(self, partition: int, state: S, force: bool = False) -> None:
        """Nothing of the partition is in flight (its state is what Kafka committed): e.g. write a snapshot."""

    def snapshot_due(self, partition: int, state: S) -> bool: ...

    async def acquired(self, restored: dict[int, Restored[S]]) -> None: ...

    # Optional (looked up with getattr): the image of the partition's state right after `decide`, when a snapshot is
    # due (or, `force`, at shutdown when anything changed since the last one); None: no snapshot now.
    # def snapshot_image(self, partition: int, state: S, force: bool = False) -> snapshots.Image | None: ...

    def released(self, partition: int, state: S) -> None: ...


class TransactionalLoop(ConsumerRebalanceListener, Generic[S]):
    def __init__(self, config: LoopConfig, service: PartitionService[S], stats: LoopStats | None = None) -> None:
        self.config, self.service = config, service
        self.stats = stats if stats is not None else LoopStats()
        self.states: dict[int, S] = {}
        self.producers: dict[int, AIOKafkaProducer] = {}
        # Held while deciding (and, not pipelined, committing): a rebalance waits for decisions and their commits.
        self.lock = asyncio.Lock()
        # The latest commit of each partition (each awaits its predecessor before opening its transaction).
        self._inflight: dict[int, asyncio.Task] = {}
        self._restoring: dict[int, asyncio.Task] = {}  # partition -> its background restore
        self._consumer: AIOKafkaConsumer | None = None
        self._positions = InputPositions(config.commands_topic, GROUP_COMMIT_INTERVAL_S)
        self._cursors: dict[int, snapshots.Cursor] = {}  # partitions whose snapshots go to config.snapshots_topic

    def busy(self) -> bool:
        """Whether a decided batch is still being committed (benchmarks and tests wait for a quiet loop)."""
        return any(not task.done() for task in self._inflight.values())

    async def run(self, stop: asyncio.Event) -> LoopStats:
        consumer = aio_consumer(  # the service name is its Kafka role (shared/roles.py)
            bootstrap=self.config.bootstrap,
            role=self.config.service,
            group_id=self.config.group_id,
            client_id=f"reelstream-{self.config.service}",
            **group_membership(None, self.config.session_timeout_ms),
            **service_fetch_options(),
            **AIOKAFKA_CONSUMER_SAFETY,
        )
        self._consumer = consumer
        observability.watch(consumer)
        consumer.subscribe([self.config.commands_topic], listener=self)
        await consumer.start()
        pacing = FetchPacing.from_env()
        try:
            while not stop.is_set():
                polled = await consumer.getmany(timeout_ms=self.config.poll_ms, max_records=self.config.batch_max)
                pacing.after_poll(consumer, bool(polled))
                observability.consumed(polled)
                if polled:
                    async with self.lock:
                        await _guarded(self._process(consumer, polled))
                await self._positions.commit_group_if_due(consumer, self.states, log)
        finally:
            await self._cancel_restores(list(self._restoring))
            async with self.lock:
                await self._settle(list(self._inflight))
                await self._final_snapshots()
            await consumer.stop()
            await self.release(list(self.states))
        return self.stats

    async def _process(self, consumer: AIOKafkaConsumer, polled: dict[TopicPartition, list[Any]]) -> None:
        if not self.stats.batches:
            self.stats.first_batch_s = time.perf_counter()
        previous, polled_at = [], time.perf_counter()
        for tp, records in polled.items():
            state = self.states.get(tp.partition)
            if state is None:  # fetched before this partition was restored (or after it was revoked)
                if tp in consumer.assignment():
                    consumer.seek(tp, records[0].offset)
                continue
            records = self._positions.take(tp.partition, records)
            if not records:
                continue
            before = self._inflight.get(tp.partition)
            if before is not None and self.service.snapshot_due(tp.partition, state):
                await before  # the partition's state must be committed state: drain it first
                self.service.quiet(tp.partition, state)
            started = time.perf_counter()
            with observability.handler_timer():
                outputs = self.service.decide(tp.partition, state, records)
            image = self._image(tp.partition, state)  # no await since decide: the state of exactly these outputs
            self.stats.records += len(records)
            self.stats.decide_s += time.perf_counter() - started
            commit = asyncio.create_task(
                _guarded(self._commit(before, tp, records[-1].offset + 1, outputs, polled_at, image))
            )
            self._inflight[tp.partition] = commit
            if self.config.pipelined:
                previous.append(before)
            else:
                await commit
        # Back-pressure: the batches decided before these are committed before the next poll is decided.
        started = time.perf_counter()
        await asyncio.gather(*(task for task in previous if task is not None))
        self.stats.commit_s += time.perf_counter() - started

    async def _commit(
        self,
        before: asyncio.Task | None,
        tp: TopicPartition,
        next_offset: int,
        outputs: list[Output],
        polled_at: float,
        image: snapshots.Image | None = None,
    ) -> None:
        if before is not None:
            await before
        prefix = self.config.service
        producer, state = self.producers[tp.partition], self.states[tp.partition]
        outputs = with_position(outputs, next_offset)
        crash_point(f"{prefix}.before_transaction")
        async with observability.commit_timer(), producer.transaction():
            futures = [
                await producer.send(
                    self.config.dlq_topic if out.dead_letter else self.config.events_topic,
                    out.value,
                    key=out.key,
                    headers=out.headers,
                    partition=None if out.dead_letter else tp.partition,  # co-partitioned by key
                )
                for out in outputs
            ]
            crash_point(f"{prefix}.mid_transaction")  # sent, maybe not acknowledged, nothing committed
            written = await asyncio.gather(*futures)
            for _ in written:
                crash_point(f"{prefix}.after_produce")  # acknowledged, the transaction (and position) not committed
            events_next = next(
                (meta.offset + 1 for out, meta in zip(outputs[::-1], written[::-1]) if not out.dead_letter), None
            )
            if image is not None:
                await self._send_snapshot(producer, tp.partition, image, next_offset, events_next)
            if not carries_position(outputs):  # no event to carry the position: dead letters (or nothing) alone
                await producer.send_offsets_to_transaction({tp: next_offset}, self.config.group_id)
        crash_point(f"{prefix}.after_commit")
        self._positions.committed(tp.partition, next_offset)
        self._advance_cursor(tp.partition, next_offset, events_next, image is not None)
        for out in outputs:
            observability.produced(
                self.config.dlq_topic if out.dead_letter else self.config.events_topic, out.value, out.headers
            )
        observability.batch_done(polled_at)
        event_offsets = [meta.offset for out, meta in zip(outputs, written) if not out.dead_letter]
        self.stats.batches += 1
        self.stats.events += len(event_offsets)
        self.stats.dead_letters += len(outputs) - len(event_offsets)
        self.stats.last_commit_s = time.perf_counter()
        self.service.committed(tp.partition, state, next_offset, event_offsets)
        if self._inflight.get(tp.partition) is asyncio.current_task():  # nothing decided beyond this commit
            self.service.quiet(tp.partition, state)

    def _image(self, partition: int, state: S, force: bool = False) -> snapshots.Image | None:
        make = getattr(self.service, "snapshot_image", None)
        if make is None or partition not in self._cursors:
            return None
        return make(partition, state, force)

    async def _send_snapshot(
        self, producer: AIOKafkaProducer, partition: int, image: snapshots.Image, input_next: int | None, events_next
    ) -> None:
        """Chunks then manifest into the open transaction; the output position is the offset after this
        transaction's last event (or, without events, where the partition's committed events end)."""
        cursor = self._cursors[partition]
        output_next = cursor.events_next if events_next is None else events_next
        encoded = snapshots.encode(self.config.service, partition, cursor.slot, image, input_next, output_next)
        futures = []
        for index, (key, value, headers) in enumerate(encoded):
            if index == len(encoded) - 1:
                await asyncio.gather(*futures)
                crash_point(f"{self.config.service}.mid_snapshot")  # chunks sent, the manifest not yet
            futures.append(
                await producer.send(self.config.snapshots_topic, value, key=key, headers=headers, partition=partition)
            )
        await asyncio.gather(*futures)
        self.stats.snapshots_written += 1

    def _advance_cursor(self, partition: int, input_next: int, events_next: int | None, wrote: bool) -> None:
        cursor = self._cursors.get(partition)
        if cursor is None:
            return
        cursor.input_next = input_next
        if events_next is not None:
            cursor.events_next = events_next
        if wrote:
            cursor.slot = 1 - cursor.slot

    async def _final_snapshots(self) -> None:
        """At shutdown, with nothing in flight: a snapshot of each partition that changed since its last one, alone in
        a transaction, so the next owner folds (almost) nothing. A failure costs only restore time."""
        for partition, state in list(self.states.items()):
            image = self._image(partition, state, force=True)
            producer = self.producers.get(partition)
            if image is None or producer is None:
                continue
            cursor = self._cursors[partition]
            try:
                async with producer.transaction():
                    await self._send_snapshot(producer, partition, image, cursor.input_next, None)
                cursor.slot = 1 - cursor.slot
            except Exception as error:  # noqa: BLE001 - Kafka I/O; the snapshot is only a cache
                log.warning("partition %d: no snapshot at shutdown: %r", partition, error)

    async def _settle(self, partitions: list[int]) -> None:
        """Wait until every decided batch of these partitions is committed."""
        tasks = [self._inflight.pop(partition) for partition in partitions if partition in self._inflight]
        await asyncio.gather(*tasks)

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        """Restore in the background: aiokafka sends no heartbeat while this callback runs, so a restore longer than
        the session timeout inside it would get the member evicted, and every rejoin would restore again. The new
        partitions stay paused (and the loop seeks back whatever it fetched of them) until they are restored."""
        partitions = {tp.partition for tp in assigned}
        async with self.lock:  # kept partitions keep their state (only newly assigned ones are restored)
            await self.release(sorted(set(self.states) - partitions))
        if self._consumer is not None:
            for partition in sorted(partitions & set(self.states)):
                next_offset = self._positions.next_offset(partition)
                if next_offset is not None:
                    self._consumer.seek(TopicPartition(self.config.commands_topic, partition), next_offset)
        self._schedule(sorted(partitions - set(self.states) - set(self._restoring)))

    def _schedule(self, partitions: list[int]) -> None:
        if not partitions:
            return
        if self._consumer is not None:
            self._consumer.pause(*self._tps(partitions))
        task = asyncio.create_task(_guarded(self.acquire(partitions)))
        for partition in partitions:
            self._restoring[partition] = task

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        """The batches in hand are committed; the states stay until the assignment says which partitions moved (an
        eager rebalance revokes everything first). A partition that moved is fenced by its new owner's producer, so a
        state kept too long can never commit."""
        partitions = [tp.partition for tp in revoked]
        half_restored = [partition for partition in partitions if partition in self._restoring]
        await self._cancel_restores(partitions)
        async with self.lock:
            await self._settle(partitions)
            observability.revoked(partitions)
            await self.release(half_restored)  # their restore was stopped: restored anew if assigned again

    async def _cancel_restores(self, partitions: list[int]) -> None:
        """Stop the restores that cover these partitions; partitions a stopped restore also covered and that stay
        assigned are restored anew."""
        tasks = {self._restoring[p] for p in partitions if p in self._restoring}
        others = sorted(p for p, task in self._restoring.items() if task in tasks and p not in partitions)
        for partition in [p for p, task in self._restoring.items() if task in tasks]:
            del self._restoring[partition]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if others:
            async with self.lock:
                await self.release(others)  # half restored: fenced producers and states are dropped first
            self._schedule(others)

    def _tps(self, partitions: list[int]) -> list[TopicPartition]:
        return [TopicPartition(self.config.commands_topic, partition) for partition in partitions]

    @property
    def restoring(self) -> bool:
        """Whether an assigned partition is still being restored (not ready)."""
        return bool(self._restoring)

    async def acquire(self, partitions: list[int]) -> None:
        """Fence and restore the partitions side by side (their reads overlap), then let the loop read them."""
        async with observability.restoring(partitions):
            restored = await asyncio.gather(*(self._acquire_one(partition) for partition in partitions))
        async with self.lock:
            for partition in partitions:
                self._restoring.pop(partition, None)
            if self._consumer is not None:
                owned = set(self._consumer.assignment())
                self._consumer.resume(*[tp for tp in self._tps(partitions) if tp in owned])
            await self.service.acquired(dict(zip(partitions, restored)))

    async def _acquire_one(self, partition: int) -> Restored[S]:
        producer = aio_producer(
            self.config.bootstrap,
            role=self.config.service,
            client_id=f"reelstream-{self.config.service}",
            transactional_id=f"{self.config.group_id}-p{partition}",
            max_batch_size=self.config.producer_batch_bytes,
            **AIOKAFKA_PRODUCER_SAFETY,
        )
        await producer.start()  # InitProducerId fences a predecessor and aborts its open transaction first
        self.producers[partition] = producer
        restored = await self.service.restore(partition)
        if self._consumer is not None:  # else restored outside the loop (tools, tests): nothing to position
            await self._positions.resume(self._consumer, partition, restored.commands_offset)
        # No await between the seek and this: the loop re-seeks a partition it has no state for.
        self.states[partition] = restored.state
        if restored.cursor is not None and self.config.snapshots_topic is not None:
            self._cursors[partition] = restored.cursor
        return restored

    async def release(self, partitions: list[int]) -> None:
        for partition in partitions:
            state = self.states.pop(partition, None)
            self._positions.forget(partition)
            self._cursors.pop(partition, None)
            if state is not None:
                self.service.quiet(partition, state, force=True)  # a restart or the next owner folds only the tail
                self.service.released(partition, state)
            producer = self.producers.pop(partition, None)
            if producer is not None:
                await producer.stop()


async def _guarded(work) -> None:
    """Any failure inside a batch or a restore stops the process unacked, never skipping a record."""
    try:
        await work
    except Exception as error:  # noqa: BLE001 - stop, never skip
        log.exception("stopping: %r", error)
        sys.stderr.flush()
        os._exit(EXIT_STOPPED)
