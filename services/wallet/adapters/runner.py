"""The wallet loop: wallet.commands → decide per record, in partition order → one Kafka transaction per partition
and polled batch holding the batch's events (on the command's partition number), dead letters and input offsets.

Pipelined: while a partition's batch is being committed (broker round trips), the next polled batch is decided
(CPU); transactions of one partition stay strictly in order, at most one waits behind the one in flight. The
in-memory state runs ahead of what is committed by at most that batch, so a snapshot is written only when nothing
of its partition is in flight, and any failure stops the process (the restart rebuilds from committed events).

A transactional producer per input partition (`transactional_id` = group + partition): a restarted or new owner
fences its predecessor and aborts whatever it left open, so a crash anywhere in a batch leaves nothing visible to
read_committed readers and the batch is decided again from the committed state. The input position commits with the
events: the transaction's last event carries the next wallet.commands offset (POSITION_HEADER), and a new owner
starts reading there; only a batch without events (dead letters alone) commits its offset inside the transaction.
The consumer group's offsets are also committed outside transactions every few seconds, for lag monitoring only. Correctness still rests on
deterministic, idempotent decisions (derived ids, broker time, the memory of transaction ids), as in DESIGN.md.
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition

from shared import observability
from shared.crash import crash_point
from shared.input_position import GROUP_COMMIT_INTERVAL_S, InputPositions, with_position
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, AIOKAFKA_PRODUCER_SAFETY, FetchPacing, service_fetch_options

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import Output, handle
from services.wallet.core.book import WalletBook
from services.wallet.adapters.restore import Restored, restore_partition

log = logging.getLogger("reelstream.wallet")
EXIT_STOPPED = 70
# One producer writes one partition: aiokafka sends one batch per partition per request, so the default 16 KB batch
# would turn a 2,000-event transaction (~1.6 MB) into ~100 sequential round trips. Below the 1 MB record batch limit.
PRODUCER_BATCH_BYTES = 512 * 1024  # a broken invariant, store or producer: stop unacked, never skip a record


@dataclass(frozen=True)
class WalletConfig:
    bootstrap: str
    commands_topic: str
    events_topic: str
    dlq_topic: str
    group_id: str
    snapshot_dir: Path | None
    batch_max: int = 2000
    poll_ms: int = 50
    session_timeout_ms: int = 8_000
    snapshot_every_records: int = 20_000
    snapshot_every_s: float = 30.0


@dataclass
class Stats:
    records: int = 0
    batches: int = 0
    events: int = 0
    dead_letters: int = 0
    snapshots: int = 0
    decide_s: float = 0.0  # CPU-bound part of the batches
    commit_s: float = 0.0  # waiting for earlier batches to commit (back-pressure)
    snapshot_s: float = 0.0


class WalletService(ConsumerRebalanceListener):
    def __init__(self, config: WalletConfig, on_ready: Callable[[list[Restored]], None] | None = None) -> None:
        self.config = config
        self.partitions: dict[int, WalletBook] = {}
        self.producers: dict[int, AIOKafkaProducer] = {}
        self.snapshot_at: dict[int, float] = {}
        self.stats = Stats()
        self._on_ready = on_ready
        self._lock = asyncio.Lock()  # held while deciding: a rebalance waits for decisions and their commits
        # The latest commit of each partition (each awaits its predecessor before opening its transaction).
        self._inflight: dict[int, asyncio.Task] = {}
        self._consumer: AIOKafkaConsumer | None = None
        self._positions = InputPositions(config.commands_topic, GROUP_COMMIT_INTERVAL_S)

    async def run(self, stop: asyncio.Event) -> Stats:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.config.bootstrap, group_id=self.config.group_id, client_id="reelstream-wallet",
            session_timeout_ms=self.config.session_timeout_ms, heartbeat_interval_ms=max(500, self.config.session_timeout_ms // 4),
            max_poll_interval_ms=300_000, rebalance_timeout_ms=30_000, **service_fetch_options(),
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
                    async with self._lock:
                        await self._guarded(self._process(consumer, polled))
                await self._positions.commit_group_if_due(consumer, self.partitions, log)
        finally:
            async with self._lock:
                await self._settle(list(self._inflight))
            await consumer.stop()
            await self.release(list(self.partitions))
        return self.stats

    async def _process(self, consumer: AIOKafkaConsumer, polled: dict[TopicPartition, list[Any]]) -> None:
        previous, polled_at = [], time.perf_counter()
        for tp, records in polled.items():
            state = self.partitions.get(tp.partition)
            if state is None:  # fetched before this partition was restored (or after it was revoked)
                if tp in consumer.assignment():
                    consumer.seek(tp, records[0].offset)
                continue
            records = self._positions.take(tp.partition, records)
            if not records:
                continue
            before = self._inflight.get(tp.partition)
            if before is not None and self._snapshot_due(state):
                await before  # a snapshot must see committed state only: drain the partition, then write it
                self._maybe_snapshot(state)
            outputs = self._decide(state, tp, records)
            previous.append(before)
            self._inflight[tp.partition] = asyncio.create_task(
                self._guarded(self._commit(before, tp, records[-1].offset + 1, outputs, polled_at)))
        # Back-pressure: the batches decided before these are committed before the next poll is decided.
        started = time.perf_counter()
        await asyncio.gather(*(task for task in previous if task is not None))
        self.stats.commit_s += time.perf_counter() - started

    def _decide(self, state: WalletBook, tp: TopicPartition, records: list[Any]) -> list[Output]:
        started = time.perf_counter()
        outputs: list[Output] = []
        with observability.handler_timer():
            for record in records:
                with observability.consume_span("wallet command", record.headers, tp.partition, record.value) as traced:
                    found = handle(state, record.key, record.value, record.timestamp,
                                   (tp.topic, tp.partition, record.offset), list(record.headers or ()))
                outputs.extend(replace(out, headers=[*out.headers, *traced]) if traced else out for out in found)
                crash_point("wallet.before_produce")  # decided and applied in memory, nothing produced yet
        self.stats.records += len(records)
        self.stats.decide_s += time.perf_counter() - started
        return outputs

    async def _commit(self, before: asyncio.Task | None, tp: TopicPartition, next_offset: int, outputs: list[Output],
                      polled_at: float) -> None:
        if before is not None:
            await before
        producer, state = self.producers[tp.partition], self.partitions[tp.partition]
        outputs = with_position(outputs, next_offset)
        async with observability.commit_timer(), producer.transaction():
            futures = [await producer.send(
                self.config.dlq_topic if out.dead_letter else self.config.events_topic, out.value, key=out.key,
                headers=out.headers, partition=None if out.dead_letter else tp.partition,  # co-partitioned by player
            ) for out in outputs]
            crash_point("wallet.mid_transaction")  # sent, maybe not acknowledged, nothing committed
            written = await asyncio.gather(*futures)
            for _ in written:
                crash_point("wallet.after_produce")  # acknowledged, the transaction (and its position) not committed
            if all(out.dead_letter for out in outputs):  # no event to carry the position
                await producer.send_offsets_to_transaction({tp: next_offset}, self.config.group_id)
        state.commands_offset = next_offset
        self._positions.committed(tp.partition, next_offset)
        for out in outputs:
            observability.produced(self.config.dlq_topic if out.dead_letter else self.config.events_topic, out.value,
                                   out.headers)
        observability.batch_done(polled_at)
        events = [meta.offset for out, meta in zip(outputs, written) if not out.dead_letter]
        if events:
            state.events_offset = events[-1] + 1
        self.stats.batches += 1
        self.stats.events += len(events)
        self.stats.dead_letters += len(outputs) - len(events)
        if self._inflight.get(tp.partition) is asyncio.current_task():  # nothing decided beyond this commit
            started = time.perf_counter()
            self._maybe_snapshot(state)
            self.stats.snapshot_s += time.perf_counter() - started

    async def _settle(self, partitions: list[int]) -> None:
        """Wait until every decided batch of these partitions is committed."""
        tasks = [self._inflight.pop(partition) for partition in partitions if partition in self._inflight]
        await asyncio.gather(*tasks)

    def _snapshot_due(self, state: WalletBook) -> bool:
        if self.config.snapshot_dir is None or not state.unsnapshotted:
            return False
        elapsed = time.monotonic() - self.snapshot_at.get(state.partition, 0.0)
        return elapsed >= self.config.snapshot_every_s or state.unsnapshotted >= self.config.snapshot_every_records

    def _maybe_snapshot(self, state: WalletBook, force: bool = False) -> None:
        """Only with nothing of the partition in flight (its state = what Kafka committed)."""
        if self._snapshot_due(state) or (force and state.unsnapshotted and self.config.snapshot_dir is not None):
            snapshot.write(self.config.snapshot_dir, self.config.events_topic, state)
            self.snapshot_at[state.partition] = time.monotonic()
            self.stats.snapshots += 1

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        async with self._lock:
            await self._guarded(self.acquire(sorted({tp.partition for tp in assigned} - set(self.partitions))))

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        async with self._lock:  # the batches in hand are committed first
            await self._settle([tp.partition for tp in revoked])
            observability.revoked([tp.partition for tp in revoked])
            await self.release([tp.partition for tp in revoked])

    async def acquire(self, partitions: list[int]) -> None:
        """Restore the partitions side by side (their reads overlap); ready once all are."""
        async with observability.restoring(partitions):
            restored = await asyncio.gather(*(self._acquire_one(partition) for partition in partitions))
        if self._on_ready is not None:
            self._on_ready(list(restored))
            self._on_ready = None

    async def _acquire_one(self, partition: int) -> Restored:
        producer = AIOKafkaProducer(
            bootstrap_servers=self.config.bootstrap, client_id="reelstream-wallet",
            transactional_id=f"{self.config.group_id}-p{partition}", max_batch_size=PRODUCER_BATCH_BYTES,
            **AIOKAFKA_PRODUCER_SAFETY,
        )
        await producer.start()  # InitProducerId fences a predecessor and aborts its open transaction first
        self.producers[partition] = producer
        result = await restore_partition(self.config.bootstrap, self.config.events_topic, partition, self.config.snapshot_dir)
        if self._consumer is not None:  # else restored outside the loop (tools, tests): nothing to position
            await self._positions.resume(self._consumer, partition, result.state.commands_offset)
        self.partitions[partition] = result.state
        self.snapshot_at[partition] = time.monotonic()
        log.info("partition %d restored in %.0f ms: snapshot at %s, %d events folded", partition, result.millis,
                 result.snapshot_offset, result.folded)
        return result

    async def release(self, partitions: list[int]) -> None:
        for partition in partitions:
            state = self.partitions.pop(partition, None)
            self._positions.forget(partition)
            if state is not None:
                self._maybe_snapshot(state, force=True)  # a restart or the next owner here folds only the tail
            producer = self.producers.pop(partition, None)
            if producer is not None:
                await producer.stop()

    @staticmethod
    async def _guarded(work) -> None:
        """Any failure inside a batch or a restore stops the process unacked: the in-memory state may be ahead of
        what Kafka committed, and the restarted process rebuilds it from wallet.events."""
        try:
            await work
        except Exception as error:  # noqa: BLE001 - stop, never skip
            log.exception("wallet: stopping: %r", error)
            sys.stderr.flush()
            os._exit(EXIT_STOPPED)

