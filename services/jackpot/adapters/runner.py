"""The jackpot service loop: jackpot.commands → decide per network → one Kafka transaction per polled batch.

Each batch's events, dead letters and input position are committed atomically (transactional producer per input
partition, `transactional_id` = group + partition, so a restarted instance fences its dead predecessor and aborts
whatever it left open). The position travels with the events: the batch's last event carries the next
jackpot.commands offset (shared/input_position.py), restore reads it back and the consumer resumes there; only a batch
without events (dead letters or repeats alone) commits its offset inside the transaction. The group's offsets are also
committed outside transactions every few seconds, for lag tools only. Correctness still rests on idempotence, not on
the transaction: state is rebuilt from jackpot.events, command ids are remembered inside the window, and a repeat
re-emits the original answer.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition

from shared import observability
from shared.crash import crash_point
from shared.input_position import GROUP_COMMIT_INTERVAL_S, InputPositions, carries_position, with_position
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, AIOKAFKA_PRODUCER_SAFETY, FetchPacing, service_fetch_options
from shared.pools import PoolsConfig, load_pools

from services.jackpot.adapters.meters import MeterBoard
from services.jackpot.adapters.records import OutRecord, dead_letter_record, event_record, to_incoming
from services.jackpot.adapters.restore import Restored, restore_partition
from services.jackpot.core.decide import decide, new_network
from services.jackpot.core.inputs import Incoming
from services.jackpot.core.state import NetworkState

log = logging.getLogger("reelstream.jackpot")


@dataclass(frozen=True)
class JackpotConfig:
    bootstrap: str
    commands_topic: str
    events_topic: str
    meters_topic: str
    dlq_topic: str
    group_id: str
    batch_max: int = 2000
    poll_ms: int = 50
    meter_interval_s: float = 0.5
    session_timeout_ms: int = 10_000


@dataclass
class Stats:
    records: int = 0
    batches: int = 0
    events: int = 0
    dead_letters: int = 0
    repeats: int = 0
    meters: int = 0
    restored_events: int = 0
    # time.perf_counter() when the first batch started and the latest batch was committed (for benchmarks).
    first_batch_s: float = 0.0
    last_commit_s: float = 0.0
    assigned: tuple[int, ...] = field(default_factory=tuple)


class JackpotService:
    def __init__(self, config: JackpotConfig, pools: PoolsConfig | None = None) -> None:
        self.config = config
        self.pools = pools or load_pools()
        self.states: dict[int, dict[str, NetworkState]] = {}
        self.producers: dict[int, AIOKafkaProducer] = {}
        self.board = MeterBoard()
        self.stats = Stats()
        self._meter_producer: AIOKafkaProducer | None = None
        self._on_ready: Callable[[], None] | None = None
        # Held from decide to commit: meters only ever show levels whose events are committed.
        self._batch_lock = asyncio.Lock()
        self._consumer: AIOKafkaConsumer | None = None
        self._positions = InputPositions(config.commands_topic, GROUP_COMMIT_INTERVAL_S)

    async def run(self, stop: asyncio.Event, on_ready: Callable[[], None] | None = None) -> Stats:
        self._on_ready = on_ready
        self._meter_producer = AIOKafkaProducer(bootstrap_servers=self.config.bootstrap, **AIOKAFKA_PRODUCER_SAFETY)
        await self._meter_producer.start()
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.config.bootstrap, group_id=self.config.group_id,
            session_timeout_ms=self.config.session_timeout_ms, heartbeat_interval_ms=1000, max_poll_interval_ms=300_000,
            **service_fetch_options(), **AIOKAFKA_CONSUMER_SAFETY,
        )
        self._consumer = consumer
        observability.watch(consumer)
        consumer.subscribe([self.config.commands_topic], listener=_Rebalance(self))
        await consumer.start()
        meters = asyncio.create_task(self._publish_meters(stop))
        pacing = FetchPacing.from_env()
        try:
            while not stop.is_set():
                polled = await consumer.getmany(timeout_ms=self.config.poll_ms, max_records=self.config.batch_max)
                pacing.after_poll(consumer, bool(polled))
                observability.consumed(polled)
                for tp, records in polled.items():
                    if tp.partition not in self.states:
                        # Fetched before the rebalance listener restored this partition: read it again later.
                        if tp in consumer.assignment():
                            consumer.seek(tp, records[0].offset)
                        continue
                    records = self._positions.take(tp.partition, records)
                    if records:
                        await self._handle(tp, records)
                await self._positions.commit_group_if_due(consumer, self.states, log)
        finally:
            meters.cancel()
            await consumer.stop()
            await self._release_all()
            await self._meter_producer.stop()
        return self.stats

    async def _handle(self, tp: TopicPartition, records: list[Any]) -> None:
        async with self._batch_lock:
            await self._handle_locked(tp, records)

    async def _handle_locked(self, tp: TopicPartition, records: list[Any]) -> None:
        if not self.stats.batches:
            self.stats.first_batch_s = time.perf_counter()
        next_offset, polled_at = records[-1].offset + 1, time.perf_counter()
        with observability.handler_timer():
            outputs = with_position(self._decide_batch(tp.partition, records), next_offset)
        producer = self.producers[tp.partition]
        crash_point("jackpot.before_transaction")
        async with observability.commit_timer(), producer.transaction():
            futures = [await producer.send(o.topic, o.value, key=o.key, headers=o.headers, partition=o_partition(o, tp, self.config))
                       for o in outputs]
            crash_point("jackpot.mid_transaction")
            await asyncio.gather(*futures)
            if not carries_position(outputs):  # no event to carry the position: dead letters or repeats alone
                await producer.send_offsets_to_transaction({tp: next_offset}, self.config.group_id)
        self._positions.committed(tp.partition, next_offset)
        for out in outputs:
            observability.produced(out.topic, out.value, out.headers)
        observability.batch_done(polled_at)
        crash_point("jackpot.after_commit")
        self.stats.records += len(records)
        self.stats.batches += 1
        self.stats.last_commit_s = time.perf_counter()

    def _decide_batch(self, partition: int, records: list[Any]) -> list[OutRecord]:
        """Decode, group by network (order kept inside each), decide; the events and dead letters to publish."""
        by_network: dict[str, list[Incoming]] = {}
        outputs: list[OutRecord] = []
        traces = observability.BatchTraces()
        for record in records:
            with observability.consume_span("jackpot command", record.headers, partition, record.value) as traced:
                incoming = to_incoming(record)
            traces.add(traced, None if isinstance(incoming, tuple) else getattr(incoming.command.data, "request_id", None))
            if isinstance(incoming, tuple):
                outputs.append(dead_letter_record(self.config.dlq_topic, record, *incoming))
                self.stats.dead_letters += 1
                continue
            network_id = incoming.command.data.network_id
            if network_id not in self._network_ids:
                outputs.append(dead_letter_record(self.config.dlq_topic, record, "UNKNOWN_NETWORK", f"no network {network_id!r}"))
                self.stats.dead_letters += 1
                continue
            by_network.setdefault(network_id, []).append(incoming)
        states = self.states[partition]
        for network_id, batch in by_network.items():
            network = self.pools.network(network_id)
            state = states.setdefault(network_id, new_network(network))
            outcome = decide(state, network, batch)
            outputs.extend(_traced(event_record(self.config.events_topic, event), traces, event) for event in outcome.events)
            outputs.extend(dead_letter_record(self.config.dlq_topic, d.position, d.code, d.reason) for d in outcome.dead_letters)
            self.stats.events += len(outcome.events)
            self.stats.dead_letters += len(outcome.dead_letters)
            self.stats.repeats += outcome.repeats
        return outputs

    @property
    def _network_ids(self) -> frozenset[str]:
        return frozenset(network.network_id for network in self.pools.networks)

    async def acquire(self, partitions: list[int]) -> None:
        async with observability.restoring(partitions):
            await self._acquire(partitions)
        self.stats.assigned = tuple(sorted(self.states))
        await self._send_meters(everything=True)
        log.info("assigned partitions %s; restored %d events", self.stats.assigned, self.stats.restored_events)
        if self._on_ready is not None:
            self._on_ready()
            self._on_ready = None

    async def _acquire(self, partitions: list[int]) -> None:
        for partition in partitions:
            producer = AIOKafkaProducer(
                bootstrap_servers=self.config.bootstrap, transactional_id=f"{self.config.group_id}-p{partition}",
                **AIOKAFKA_PRODUCER_SAFETY,
            )
            await producer.start()  # InitProducerId: fences a predecessor and aborts its open transaction
            self.producers[partition] = producer
            restored = await restore_partition(self.config.bootstrap, self.config.events_topic, partition, self.pools)
            await self._resume(partition, restored)
            self.stats.restored_events += sum(state.events_applied for state in self.states[partition].values())

    async def _resume(self, partition: int, restored: Restored) -> None:
        """Take the partition's networks, and read jackpot.commands from where the last committed transaction left
        it: the position its events carry, or the group's offset when that is further (a transaction without events
        commits it there). Nothing recorded: the group's offset (or the reset policy) applies."""
        await self._positions.resume(self._consumer, partition, restored.commands_offset)
        # No await between the seek and this: the loop re-seeks a partition it has no states for.
        self.states[partition] = restored.states

    async def release(self, partitions: list[int]) -> None:
        async with self._batch_lock:  # never stop a producer in the middle of its batch's transaction
            for partition in partitions:
                states = self.states.pop(partition, {})
                self._positions.forget(partition)
                self.board.forget([pool_id for state in states.values() for pool_id in state.pools])
                producer = self.producers.pop(partition, None)
                if producer is not None:
                    await producer.stop()
            self.stats.assigned = tuple(sorted(self.states))

    async def _release_all(self) -> None:
        await self.release(list(self.producers))

    async def _publish_meters(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.config.meter_interval_s)
            await self._send_meters()

    async def _send_meters(self, everything: bool = False) -> None:
        async with self._batch_lock:
            states = [state for states in self.states.values() for state in states.values()]
            meters = self.board.due(states, everything=everything)
        if not meters:
            return
        futures = [await self._meter_producer.send(self.config.meters_topic, r.value, key=r.key, headers=r.headers)
                   for r in (event_record(self.config.meters_topic, meter) for meter in meters)]
        await asyncio.gather(*futures)
        self.board.published(meters)
        observability.pool_levels(meters)
        self.stats.meters += len(meters)


def _traced(out: OutRecord, traces: observability.BatchTraces, event: Any) -> OutRecord:
    """An event with the trace of the request it answers (the batch's latest trace for aggregates)."""
    headers = traces.headers_for(getattr(event.data, "request_id", None))
    return replace(out, headers=[*out.headers, *headers]) if headers else out


def o_partition(out: OutRecord, tp: TopicPartition, config: JackpotConfig) -> int | None:
    """Events go to the command's partition number (same key, same partition count: the network's partition)."""
    return tp.partition if out.topic == config.events_topic else None


class _Rebalance(ConsumerRebalanceListener):
    def __init__(self, service: JackpotService) -> None:
        self.service = service

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        observability.revoked([tp.partition for tp in revoked])
        await self.service.release([tp.partition for tp in revoked])

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        await self.service.acquire([tp.partition for tp in assigned])
