"""The one transactional loop of the money path: `<x>.commands` (and co-partitioned inputs) → decide per partition → one
Kafka transaction per partition and polled batch with its events, dead letters and input position (docs/architecture.md,
"One core contract, one loop")."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import time
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.coordinator.assignors.range import RangePartitionAssignor

from shared import inbound, observability, signing, snapshots
from shared.crash import crash_point
from shared.heap import HeapFreezer
from shared.observability.stalls import StallWatch
from shared.packing import packed
from shared.input_position import (
    GROUP_COMMIT_INTERVAL_S,
    InputPositions,
    Output,
    with_inputs,
)
from shared.topics import DLQ_MAX_MESSAGE_BYTES, compressed_by_producers
from shared.kafka import (
    AIOKAFKA_CONSUMER_SAFETY,
    AIOKAFKA_PRODUCER_SAFETY,
    FetchPacing,
    aio_consumer,
    aio_producer,
    compress_by_topic,
    group_membership,
    platform_topics_compressed,
    service_fetch_options,
    start_fencing,
)

log = logging.getLogger("reelstream.loop")
# How often a partition's transactions also commit its positions to the consumer group, for lag tools (seconds).
GROUP_COMMIT_ENV = "REELSTREAM_GROUP_COMMIT_S"
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
    session_timeout_ms: int | None = None  # None: shared.kafka.group_membership's (environment or its default)
    pipelined: bool = False
    # While records flow, fetch with the busy options (shared/kafka.FetchPacing: the broker gathers a poll's worth);
    # False for a loop of few records on an answer's path (the seamless saga), each fetched as soon as it lands.
    coalesce: bool = True
    # One producer writes one partition: aiokafka sends one batch per partition per request, so its small default batch
    # would turn a transaction of `batch_max` events into many sequential round trips. Below the topic's record limit.
    producer_batch_bytes: int = 512 * 1024
    # Co-partitioned topics read with the commands topic (their offsets commit in the batches' transactions).
    extra_inputs: tuple[str, ...] = ()
    # The events topic's logical name, which the transaction signatures cover (shared/signing.py); None: the one of
    # the topics `service` owns that `events_topic` ends with.
    events_logical: str | None = None
    # `<service>.snapshots` (physical name; shared/snapshots.py): the image the service's `snapshot_image` gives right
    # after deciding a batch goes into that batch's transaction. None: no snapshots.
    snapshots_topic: str | None = None
    # Physical topics a state with snapshots folds beyond its events topic (outputs of its transactions or inputs),
    # whose positions each snapshot names (shared/snapshots.py: Snapshot.positions): what lets a loop with extra
    # inputs (the spin) snapshot. Empty: the state folds its events topic alone.
    snapshot_folds: tuple[str, ...] = ()
    # Physical topics among the outputs, by preference, whose last record in a transaction carries the next offset of
    # every input (shared/input_position.py: with_inputs), so the transaction commits no offsets: topics the state's
    # restore folds and reads the positions back from (`Restored.inputs`; a snapshot's manifest names them too). The
    # spin: its journal, then spin.events; the wallet and the jackpot (reading their internal-command topics beside
    # the public ones): their events topic. A batch writing none of them commits its offsets in the transaction.
    # Empty: every batch commits its offsets in the transaction.
    positions_on: tuple[str, ...] = ()
    # Event types (Output.message_type) whose consecutive outputs of one topic, key and headers the loop packs into one
    # batch-envelope record before the positions are placed (shared/packing.py). Empty: one record an output.
    packable: frozenset[str] = frozenset()

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.commands_topic, *self.extra_inputs)


@dataclass(frozen=True, kw_only=True)
class ServiceConfig:
    """What a money service's config (the wallet's, the jackpot's) names for its loop: its topics, group and batching;
    each service adds its own fields."""

    bootstrap: str
    commands_topic: str
    events_topic: str
    dlq_topic: str
    group_id: str
    batch_max: int = 2000
    poll_ms: int = 50
    session_timeout_ms: int | None = None
    snapshots_topic: str | None = None  # None: no snapshots (every restore folds the events topic from the start)
    # The internal-command topic (physical name): the spin service's commands, read in the same loop (one state per
    # partition number); None: the commands topic alone (tools and tests that send everything there).
    internal_topic: str | None = None


def loop_config(config: ServiceConfig, service: str, **extra: Any) -> LoopConfig:
    """The loop of a service's own config: both inputs, their positions on each transaction's last event (shared/
    input_position.py: with_inputs), snapshots when it names a topic for them, plus `extra`."""
    return LoopConfig(
        bootstrap=config.bootstrap,
        commands_topic=config.commands_topic,
        events_topic=config.events_topic,
        dlq_topic=config.dlq_topic,
        group_id=config.group_id,
        service=service,
        batch_max=config.batch_max,
        poll_ms=config.poll_ms,
        session_timeout_ms=config.session_timeout_ms,
        snapshots_topic=config.snapshots_topic,
        extra_inputs=(config.internal_topic,) if config.internal_topic else (),
        positions_on=(config.events_topic,),
        **extra,
    )


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
    snapshots: int = 0  # images taken (shared/restoring.py), and the seconds taking them
    snapshot_s: float = 0.0
    restores: int = 0  # partitions restored (a rebalance that keeps a partition does not restore it)
    restored_events: int = 0
    restored_from_snapshot: int = 0


@dataclass(frozen=True)
class Restored(Generic[S]):
    """A partition's state as its events left it, the input position they recorded (None: none), and a report."""

    state: S
    commands_offset: int | None
    report: Any = None
    # Where the partition's snapshots stand (shared/snapshots.py); None: no snapshots for it (no topic, or none kept).
    cursor: snapshots.Cursor | None = None
    # With LoopConfig.positions_on: the next offset of each input (logical name) the restored state has decided, as
    # its last carrying record (or its snapshot) recorded; the consumer resumes there (or at the group's offset).
    inputs: dict[str, int] | None = None


class PartitionService(Protocol[S]):
    """What a service gives the loop: how it reads its inputs, its restore, its decisions, and what it does around
    commits (Stateless gives the defaults of all but restore, decide and acquired)."""

    # One shared/inbound.py Input per LoopConfig.inputs topic, in that order: the loop reads each record once and
    # `decide` iterates Inbounds (each read when the service reaches it, against the state its earlier ones left); the
    # loop dead-letters or quarantines the refused ones itself. Empty: `decide` gets the records as polled.
    inputs: tuple[inbound.Input, ...]

    async def restore(self, partition: int) -> Restored[S]: ...

    def decide(self, partition: int, state: S, records: Any) -> list[Output]:
        """The batch's outputs (events and dead letters), the state evolved by its events."""

    async def completed(self, partition: int, outputs: list[Output]) -> list[Output]:
        """The batch's outputs made whole once every earlier batch of the partition has committed, before they are
        signed and sent: a repeat's first records read back (shared/repeats.py)."""

    def committed(self, partition: int, state: S, next_offset: int, event_offsets: list[int]) -> None:
        """The batch's transaction committed; `event_offsets` are the events' offsets in the events topic."""

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        """More outputs made from the transaction's signed records (a copy that carries a record's signature: the
        jackpot's answers on spin.jackpot-answers), signed by a second signature of their own and sent in the same
        transaction."""

    def acknowledged(self, partition: int, outputs: list[Output]) -> None:
        """Called inside the transaction once all its outputs are acknowledged, before the commit: crash hooks."""

    def snapshot_image(self, partition: int, state: S, force: bool = False) -> snapshots.Image | None:
        """With LoopConfig.snapshots_topic: the image of the partition's state right after `decide` when a snapshot is
        due (`force`: at shutdown, when anything changed since the last one), else None (shared/snapshots.py)."""

    async def acquired(self, restored: dict[int, Restored[S]]) -> None: ...

    def released(self, partition: int, state: S) -> None: ...


class Stateless(Generic[S]):
    """The defaults of a PartitionService's hooks: raw records, nothing around commits, no copies, no snapshots."""

    inputs: tuple[inbound.Input, ...] = ()

    async def completed(self, partition: int, outputs: list[Output]) -> list[Output]:
        return outputs

    def committed(self, partition: int, state: S, next_offset: int, event_offsets: list[int]) -> None:
        return None

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        return []

    def acknowledged(self, partition: int, outputs: list[Output]) -> None:
        return None

    def snapshot_image(self, partition: int, state: S, force: bool = False) -> snapshots.Image | None:
        return None

    def released(self, partition: int, state: S) -> None:
        return None


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
        group_interval_s = float(os.environ.get(GROUP_COMMIT_ENV, GROUP_COMMIT_INTERVAL_S))
        self._positions = InputPositions(config.commands_topic, group_interval_s)
        self._snapshots = _keeper(config, service)
        # Physical input topic -> how it is read (the service's `inputs`, in the order of config.inputs).
        self._inputs = dict(zip(config.inputs, service.inputs))

    def input_partitions(self) -> int | None:
        """The commands topic's partition count as the consumer's metadata has it (None outside a running loop): the
        services' partition guard (shared/records.py) checks each record against it."""
        found = self._consumer.partitions_for_topic(self.config.commands_topic) if self._consumer is not None else None
        return len(found) if found else None

    def busy(self) -> bool:
        """Whether a decided batch is still being committed (benchmarks and tests wait for a quiet loop)."""
        return any(not task.done() for task in self._inflight.values())

    async def run(self, stop: asyncio.Event) -> LoopStats:
        consumer = aio_consumer(  # the service name is its Kafka role (shared/roles.py)
            bootstrap=self.config.bootstrap,
            role=self.config.service,
            group_id=self.config.group_id,
            client_id=f"reelstream-{self.config.service}",
            # Co-partitioned inputs: partition n of every input goes to the same member.
            **({"partition_assignment_strategy": (RangePartitionAssignor,)} if self.config.extra_inputs else {}),
            **group_membership(None, self.config.session_timeout_ms),
            **service_fetch_options(),
            **AIOKAFKA_CONSUMER_SAFETY,
        )
        self._consumer = consumer
        observability.watch(consumer)
        consumer.subscribe(list(self.config.inputs), listener=self)
        await consumer.start()
        pacing = FetchPacing.from_env(coalesce=self.config.coalesce)
        heap = HeapFreezer.from_env()
        watch = StallWatch.from_env(self.config.service)
        watching = asyncio.create_task(watch.run(stop)) if watch is not None else None
        try:
            while not stop.is_set():
                polled = await consumer.getmany(timeout_ms=self.config.poll_ms, max_records=self.config.batch_max)
                pacing.after_poll(consumer, bool(polled))
                observability.consumed(polled)
                if polled:
                    async with self.lock:
                        await _guarded(self._process(consumer, polled))
                elif self._snapshots is not None and self._snapshots.held:
                    async with self.lock:
                        await _guarded(self._write_held())
                if heap.tick() == "sweep":
                    found, took = heap.last_sweep
                    log.info("heap swept: %d unreachable objects in %.0f ms", found, took * 1000)
                if self._positions.idle_due(self.states, time.monotonic()):
                    async with self.lock:
                        await _guarded(self._tell_group())
        finally:
            if watching is not None:
                watching.cancel()
            await self._cancel_restores(list(self._restoring))
            async with self.lock:
                await self._settle(list(self._inflight))
                if self._snapshots is not None:
                    self.stats.snapshots_written += await self._snapshots.final(self.states, self.producers)
            await consumer.stop()
            await self.release(list(self.states))
        return self.stats

    @property
    def consumer(self) -> AIOKafkaConsumer | None:
        return self._consumer

    async def _process(self, consumer: AIOKafkaConsumer, polled: dict[TopicPartition, list[Any]]) -> None:
        if not self.stats.batches:
            self.stats.first_batch_s = time.perf_counter()
        previous, polled_at = [], time.perf_counter()
        # At most one snapshot image a poll: partitions restored together fall due together, and their images taken
        # in one go stalled every partition's spins for the sum of them; the others wait for the next polls.
        imaged = False
        for partition, parts in _by_partition(polled).items():
            state = self.states.get(partition)
            if state is None:  # fetched before this partition was restored (or after it was revoked)
                for tp, records in parts:
                    if tp in consumer.assignment():
                        consumer.seek(tp, records[0].offset)
                continue
            parts = [(tp, self._positions.take(partition, records, tp.topic)) for tp, records in parts]
            offsets = {tp: records[-1].offset + 1 for tp, records in parts if records}
            records = [record for _, taken in parts for record in taken]
            if not records:
                continue
            before = self._inflight.get(partition)
            started = time.perf_counter()
            with observability.handler_timer():
                outputs = self._decide(partition, state, records)
            # No await since decide: the image is the state of exactly these outputs.
            image = self._snapshots.image(partition, state) if self._snapshots is not None and not imaged else None
            imaged = imaged or image is not None
            self.stats.records += len(records)
            self.stats.decide_s += time.perf_counter() - started
            carried = self._carried(partition)  # every input's position after this batch (before the next is taken)
            work = self._commit(before, partition, offsets, outputs, polled_at, image, carried)
            commit = asyncio.create_task(_guarded(work))
            self._inflight[partition] = commit
            # Pipelined, a batch waits only for its partition's previous one; not pipelined, for every batch of this
            # poll (each partition's transaction its own, side by side), all committed before the lock is let go.
            previous.append(before if self.config.pipelined else commit)
        # Back-pressure: the batches decided before these are committed before the next poll is decided.
        started = time.perf_counter()
        await asyncio.gather(*(task for task in previous if task is not None))
        self.stats.commit_s += time.perf_counter() - started

    def _decide(self, partition: int, state: S, records: list[Any]) -> list[Output]:
        """The service's outputs for the batch; with its `inputs`, the records read once each on the way (Inbounds) and
        the refused ones' dead letters after its outputs."""
        if not self._inputs:
            return self.service.decide(partition, state, records)
        refused: list[Output] = []
        outputs = self.service.decide(partition, state, self._read(state, records, refused))
        return [*outputs, *refused]

    def _read(self, state: S, records: list[Any], refused: list[Output]):
        partitions = self.input_partitions()
        for record in records:
            found = inbound.read(self._inputs[record.topic], record, partitions, state)
            if found.refusal is not None:
                letter = inbound.refused(found, self.config.service, self.config.commands_topic)
                if letter is not None:
                    refused.append(letter)
            yield found

    async def _write_held(self) -> None:
        """Each held image whose bytes are in, of a partition with nothing in flight, in a transaction of its own: an
        idle partition's snapshot does not wait for its next batch."""
        for partition in list(self._snapshots.held):
            inflight, producer = self._inflight.get(partition), self.producers.get(partition)
            if (inflight is not None and not inflight.done()) or producer is None:
                continue
            ready = self._snapshots.ready(partition)
            if ready is None:
                continue
            async with producer.transaction():
                await self._snapshots.send(producer, partition, ready)
            self._snapshots.committed(partition, None, None, True)
            self.stats.snapshots_written += 1

    async def _tell_group(self) -> None:
        """Each owned partition with nothing in flight whose group has positions to learn (`idle_due`), in a
        transaction of its offsets alone: the group's offsets move only inside transactions (a busy partition's next
        batch tells it). Each is judged when its turn comes: a commit still in flight (pipelined) may have told the
        group while an earlier partition's transaction was awaited."""
        for partition in self._positions.idle_due(self.states, time.monotonic()):
            inflight, producer = self._inflight.get(partition), self.producers.get(partition)
            if (inflight is not None and not inflight.done()) or producer is None:
                continue
            group = self._positions.for_group(partition, {}, time.monotonic())
            if not group:
                continue
            async with producer.transaction():
                await producer.send_offsets_to_transaction(group, self.config.group_id)
            self._positions.group_committed(partition, group, time.monotonic())

    def _carried(self, partition: int) -> dict[str, int] | None:
        """The input positions a batch's carrying record names (logical topics), with `positions_on`; else None."""
        if not self.config.positions_on:
            return None
        return {_declared_name(topic): offset for topic, offset in self._positions.known(partition).items()}

    async def _commit(
        self,
        before: asyncio.Task | None,
        partition: int,
        offsets: dict[TopicPartition, int],
        outputs: list[Output],
        polled_at: float,
        image: snapshots.Taken | None = None,
        carried: dict[str, int] | None = None,
    ) -> None:
        if before is not None:
            await before
        outputs = await self.service.completed(partition, outputs)
        prefix = self.config.service
        producer, state = self.producers[partition], self.states[partition]
        commands = TopicPartition(self.config.commands_topic, partition)
        outputs, positions_travel = self._with_positions(packed(outputs, self.config.packable), carried)
        sent = signed(self.config, outputs)
        sent += signed(self.config, self.service.derived(partition, sent))
        crash_point(f"{prefix}.before_transaction")
        async with observability.commit_timer(), producer.transaction():
            futures = [await self._send(producer, partition, out) for out in sent]
            crash_point(f"{prefix}.mid_transaction")  # sent, maybe not acknowledged, nothing committed
            metas = await asyncio.gather(*futures)
            for _ in metas:
                crash_point(f"{prefix}.after_produce")  # acknowledged, the transaction (and position) not committed
            if sent:
                self.service.acknowledged(partition, sent)
            event_offsets = [meta.offset for out, meta in zip(sent, metas) if not out.dead_letter and out.topic is None]
            events_next = event_offsets[-1] + 1 if event_offsets else None
            folds = self._fold_positions(partition, offsets, metas)
            if folds is not None:
                events_next = folds.get(_logical(self.config, None), events_next)
            ready = self._snapshots.ready(partition) if self._snapshots is not None else None
            if ready is not None:  # an image of an earlier batch, its bytes in: never waited for
                await self._snapshots.send(producer, partition, ready)
            # No record carries the positions: they commit here; else the group learns them now and then, here too.
            group = self._positions.for_group(partition, offsets, time.monotonic(), due_only=positions_travel)
            if group:
                await producer.send_offsets_to_transaction(group, self.config.group_id)
            crash_point(f"{prefix}.before_commit")
        crash_point(f"{prefix}.after_commit")
        for tp, next_offset in offsets.items():
            self._positions.committed(partition, next_offset, tp.topic)
        if group:
            self._positions.group_committed(partition, group, time.monotonic())
        if self._snapshots is not None:
            wrote = ready is not None
            self._snapshots.committed(partition, offsets.get(commands), events_next, wrote, folds, carried)
            self.stats.snapshots_written += ready is not None
            if image is not None:  # this batch committed: its image names its positions, in a later transaction
                self._snapshots.hold(partition, image)
        for out in sent:
            observability.produced(self._topic_of(out), out.value, out.headers)
        observability.batch_done(polled_at)
        events = sum(1 for out in sent if not out.dead_letter)
        self.stats.batches += 1
        self.stats.events += events
        self.stats.dead_letters += len(sent) - events
        self.stats.last_commit_s = time.perf_counter()
        self.service.committed(partition, state, offsets.get(commands, 0), event_offsets)

    def _with_positions(self, outputs: list[Output], carried: dict[str, int] | None) -> tuple[list[Output], bool]:
        """The batch's outputs with every input's position on a carrying output (`positions_on`), and whether they
        travel so (else the transaction commits the offsets)."""
        if not self.config.positions_on:
            return outputs, False
        return with_inputs(outputs, carried or {}, self.config.positions_on, self.config.events_topic)

    def _fold_positions(
        self, partition: int, offsets: dict[TopicPartition, int], metas: list[Any]
    ) -> dict[str, int] | None:
        """The folded topics' positions once this transaction commits (None: the state folds its events alone)."""
        cursor = self._snapshots.cursors.get(partition) if self._snapshots is not None else None
        if cursor is None or not self.config.snapshot_folds:
            return None
        written: dict[tuple[str, int], int] = {}
        for meta in metas:
            written[(meta.topic, meta.partition)] = max(written.get((meta.topic, meta.partition), 0), meta.offset + 1)
        consumed = {(tp.topic, tp.partition): offset for tp, offset in offsets.items()}
        folds = {topic: _declared_name(topic) for topic in self.config.snapshot_folds}
        return snapshots.positions_after(cursor.positions, partition, folds, written, consumed)

    def _topic_of(self, out: Output) -> str:
        if out.topic is not None:
            return out.topic
        return self.config.dlq_topic if out.dead_letter else self.config.events_topic

    async def _send(self, producer: AIOKafkaProducer, partition: int, out: Output) -> asyncio.Future:
        if out.topic is not None:
            target = out.partition
        else:
            target = None if out.dead_letter else partition  # events are co-partitioned by key
        return await producer.send(self._topic_of(out), out.value, key=out.key, headers=out.headers, partition=target)

    async def drain(self) -> None:
        """Wait until every decided batch is committed (under `lock`: nothing new is decided meanwhile)."""
        await self._settle(list(self._inflight))

    async def _settle(self, partitions: list[int]) -> None:
        """Wait until every decided batch of these partitions is committed."""
        tasks = [self._inflight.pop(partition) for partition in partitions if partition in self._inflight]
        await asyncio.gather(*tasks)

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        """Restore in the background: aiokafka sends no heartbeat while this callback runs, so a restore longer than
        the session timeout inside it would get the member evicted, and every rejoin would restore again. The new
        partitions stay paused (and the loop seeks back whatever it fetched of them) until they are restored. Kept
        partitions keep their state (only newly assigned ones are restored) and resume at their next offset."""
        partitions = {tp.partition for tp in assigned}
        async with self.lock:
            await self.release(sorted(set(self.states) - partitions))
        if self._consumer is not None:
            for partition in sorted(partitions & set(self.states)):
                for topic, next_offset in self._positions.known(partition).items():
                    self._consumer.seek(TopicPartition(topic, partition), next_offset)
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
        partitions = sorted({tp.partition for tp in revoked})
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
        return [TopicPartition(topic, partition) for topic in self.config.inputs for partition in partitions]

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
            max_request_size=DLQ_MAX_MESSAGE_BYTES,  # a dead letter of the largest record its source topic takes
            **AIOKAFKA_PRODUCER_SAFETY,
        )
        if platform_topics_compressed():
            compress_by_topic(producer, compressed_by_producers)
        await start_fencing(producer)  # InitProducerId fences a predecessor and aborts its open transaction first
        self.producers[partition] = producer
        restored = await self.service.restore(partition)
        if self._consumer is not None:  # else restored outside the loop (tools, tests): nothing to position
            await self._positions.resume(self._consumer, partition, self._recorded(restored))
        # No await between the seek and this: the loop re-seeks a partition it has no state for.
        self.states[partition] = restored.state
        if self._snapshots is not None:
            self._snapshots.track(partition, restored.cursor)
        return restored

    def _recorded(self, restored: Restored[S]) -> dict[str, int]:
        """The input positions a restore recorded, by physical topic: the commands topic's, then each input's."""
        recorded = {} if restored.commands_offset is None else {self.config.commands_topic: restored.commands_offset}
        physical = {_declared_name(topic): topic for topic in self.config.inputs}
        for logical, offset in (restored.inputs or {}).items():
            if logical in physical:
                topic = physical[logical]
                recorded[topic] = max(offset, recorded.get(topic, 0))
        return recorded

    async def release(self, partitions: list[int]) -> None:
        for partition in partitions:
            state = self.states.pop(partition, None)
            self._positions.forget(partition)
            if self._snapshots is not None:
                self._snapshots.forget(partition)
            if state is not None:
                self.service.released(partition, state)
            producer = self.producers.pop(partition, None)
            if producer is not None:
                await producer.stop()


def _by_partition(polled: dict[TopicPartition, list[Any]]) -> dict[int, list[tuple[TopicPartition, list[Any]]]]:
    """A poll's records by partition number (of every input), each topic's in offset order."""
    grouped: dict[int, list[tuple[TopicPartition, list[Any]]]] = {}
    for tp, records in polled.items():
        grouped.setdefault(tp.partition, []).append((tp, records))
    return grouped


def _keeper(config: LoopConfig, service: Any) -> snapshots.Keeper | None:
    """The loop's snapshot keeper when the config names a snapshots topic (the service then makes the images)."""
    if config.snapshots_topic is None:
        return None
    # A manifest names the commands topic's position, and every input's when the records carry them (positions_on).
    if config.extra_inputs and not config.snapshot_folds and not config.positions_on:
        raise ValueError("snapshots of a loop with extra inputs need the positions of what it folds: snapshot_folds")
    return snapshots.Keeper(
        config.service, config.snapshots_topic, _declared_name(config.snapshots_topic), service.snapshot_image
    )


def signed(config: LoopConfig, outputs: list[Output]) -> list[Output]:
    """The transaction's records signed once by the service's key, each under its own topic's logical name (dead
    letters keep the refused record's headers); unchanged when the environment has no signing directory."""
    events = [index for index, out in enumerate(outputs) if not out.dead_letter]
    if not events or signing.signer(config.service) is None:
        return outputs
    items = [
        signing.Item(_logical(config, outputs[i].topic), outputs[i].key, outputs[i].value, outputs[i].headers)
        for i in events
    ]
    done = list(outputs)
    for index, headers in zip(events, signing.sign_items(config.service, items)):
        done[index] = replace(outputs[index], headers=headers)
    return done


def _logical(config: LoopConfig, physical: str | None) -> str:
    """The logical name of an output's topic: the events topic's, or the longest declared topic name the physical
    name (prefix + name) ends with. Both are resolved once per topic (this runs for every record committed)."""
    if physical is None:
        return config.events_logical or _logical_events(config.service, config.events_topic)
    return _declared_name(physical)


@functools.lru_cache(maxsize=256)
def _declared_name(physical: str) -> str:
    from shared.topics import declared_name

    return declared_name(physical)


@functools.lru_cache(maxsize=64)
def _logical_events(service: str, events_topic: str) -> str:
    from shared.records import OWNERS

    owned = [name for name, owner in OWNERS.items() if owner == service and events_topic.endswith(name)]
    if not owned:
        raise ValueError(f"{events_topic!r} is no topic {service!r} owns: set LoopConfig.events_logical")
    return max(owned, key=len)


async def _guarded(work) -> None:
    """Any failure inside a batch or a restore stops the process unacked, never skipping a record."""
    try:
        await work
    except Exception as error:  # noqa: BLE001 - stop, never skip
        log.exception("stopping: %r", error)
        sys.stderr.flush()
        os._exit(EXIT_STOPPED)
