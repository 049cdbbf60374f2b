"""The jackpot on the shared transactional loop (not pipelined): jackpot.commands and jackpot.internal in, decided one
command at a time by the core, jackpot.events and committed levels' meters out (docs/jackpot.md)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from aiokafka import AIOKafkaProducer

from shared import observability, signing, snapshots
from shared.decision import Decision
from shared.events import broker_time
from shared.events.base import packable_types
from shared.inbound import Inbound
from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer
from shared.loop import LoopConfig, LoopStats, loop_config, Restored, Stateless, TransactionalLoop
from shared.pools import PoolsConfig, load_pools
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_INTERNAL, JACKPOT_METERS, SPIN_JACKPOT_ANSWERS
from shared.topics import dlq_name

from services.jackpot.adapters.drop_key import live_secrets
from services.jackpot.adapters.meters import MeterBoard
from shared.input_position import Output
from services.jackpot.adapters import answers, snapshot
from services.jackpot.adapters.records import INPUTS, dead_letter_record, event_record
from services.jackpot.adapters.restore import restore_partition
from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.decide import JackpotCore, States

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
    session_timeout_ms: int | None = None
    snapshots_topic: str | None = None  # None: no snapshots (every restore folds jackpot.events from the start)
    snapshot_every_events: int = 5_000
    snapshot_every_s: float = 60.0
    # spin.jackpot-answers (physical name): each claim's answer, copied there keyed by player id in the transaction
    # that writes it to jackpot.events (services/jackpot/adapters/answers.py). None: jackpot.events alone.
    answers_topic: str | None = None
    # jackpot.internal (physical name): the spin service's contributions and claims, read in the same loop (one state
    # per partition number); None: jackpot.commands alone (the migration's old topic).
    internal_topic: str | None = None

    @classmethod
    def on_prefix(cls, bootstrap: str, prefix: str, **options: Any) -> JackpotConfig:
        """The jackpot's topics and group under a deployment's topic prefix (tests and benchmarks use a fresh one)."""
        return cls(
            bootstrap=bootstrap,
            commands_topic=prefix + JACKPOT_COMMANDS,
            events_topic=prefix + JACKPOT_EVENTS,
            meters_topic=prefix + JACKPOT_METERS,
            dlq_topic=prefix + dlq_name(JACKPOT_COMMANDS),
            group_id=f"{prefix}reelstream-jackpot",
            **{"answers_topic": prefix + SPIN_JACKPOT_ANSWERS, "internal_topic": prefix + JACKPOT_INTERNAL, **options},
        )

    def loop(self) -> LoopConfig:
        extra = (self.internal_topic,) if self.internal_topic else ()
        return loop_config(  # both inputs' positions on each transaction's last event
            self,
            "jackpot",
            snapshots_topic=self.snapshots_topic,
            extra_inputs=extra,
            positions_on=(self.events_topic,),
            packable=packable_types(JACKPOT_EVENTS),  # a transaction's contributions: one record a network and run
        )


@dataclass
class Stats(LoopStats):
    repeats: int = 0
    meters: int = 0
    restored_events: int = 0
    restores: int = 0  # partitions restored (a rebalance that keeps a partition does not restore it)
    restored_from_snapshot: int = 0
    snapshots: int = 0
    assigned: tuple[int, ...] = field(default_factory=tuple)


class JackpotService(Stateless[States]):
    """The jackpot's part of the loop: restore the partition's networks, decide each command, publish meters."""

    def __init__(
        self, config: JackpotConfig, pools: PoolsConfig | None = None, secrets: DropSecrets | None = None
    ) -> None:
        self.config = config
        self.pools = pools or load_pools()
        needs_key = any(network.drop_pools() for network in self.pools.networks)
        self.secrets = secrets if secrets is not None or not needs_key else live_secrets()
        self.core = JackpotCore(self.pools, self.secrets)
        self.board = MeterBoard()
        self.stats = Stats()
        self._meter_producer: AIOKafkaProducer | None = None
        self._on_ready: Callable[[], None] | None = None
        self._unsnapshotted: dict[int, int] = {}  # events decided since the partition's last snapshot
        self._snapshot_at: dict[int, float] = {}
        self._quarantined: dict[int, tuple[int, ...]] = {}
        self.loop: TransactionalLoop[States] = TransactionalLoop(config.loop(), self, self.stats)

    @property
    def states(self) -> dict[int, States]:
        return self.loop.states

    async def run(self, stop: asyncio.Event, on_ready: Callable[[], None] | None = None) -> Stats:
        self._on_ready = on_ready
        self._meter_producer = aio_producer(self.config.bootstrap, role="jackpot", **AIOKAFKA_PRODUCER_SAFETY)
        await self._meter_producer.start()
        meters = asyncio.create_task(self._publish_meters(stop))
        try:
            await self.loop.run(stop)
        finally:
            meters.cancel()
            await self._meter_producer.stop()
        return self.stats

    async def restore(self, partition: int) -> Restored[States]:
        restored = await restore_partition(
            self.config.bootstrap, self.config.events_topic, partition, self.pools, self.config.snapshots_topic
        )
        self.stats.restored_events += restored.folded
        self.stats.restores += 1
        self.stats.restored_from_snapshot += restored.snapshot_offset is not None
        self._unsnapshotted[partition] = restored.folded
        self._snapshot_at[partition] = snapshots.staggered(partition, self.config.snapshot_every_s, time.monotonic())
        self._quarantined[partition] = tuple(restored.quarantined)
        log.info(
            "partition %d restored: snapshot at %s, %d events folded, %d quarantined",
            partition,
            restored.snapshot_offset,
            restored.folded,
            len(restored.quarantined),
        )
        return Restored(restored.states, restored.commands_offset, restored, restored.cursor, inputs=restored.inputs)

    inputs = INPUTS  # jackpot.commands, then jackpot.internal: read by the loop (shared/inbound.py)

    def decide(self, partition: int, states: States, inbounds: Iterable[Inbound]) -> list[Output]:
        """Each read command decided by the core, one at a time in partition order; the events and dead letters to
        publish (the loop dead-letters what it refused reading, and packs runs of contributions)."""
        decided: list[tuple[Any, Decision]] = []
        traces = observability.BatchTraces()
        for found in inbounds:
            if found.refusal is not None:
                continue
            record, message = found.record, found.message
            with observability.consume_span("jackpot command", record.headers, partition, record.value) as traced:
                decided.append((record, self.core.decide(states, message, broker_time(message.broker_ms))))
            payload = message.payload
            traces.add(traced, getattr(getattr(payload, "data", None), "request_id", None))  # none: packed, undecodable
        outputs: list[Output] = []
        for record, decision in decided:  # after every trace is known: a run of contributions shares its headers
            outputs.extend(
                answers.tagged(_traced(event_record(event), traces, event), event) for event in decision.events
            )
            outputs.extend(dead_letter_record(record, d.code, d.reason, d.field) for d in decision.dead_letters)
            self.stats.repeats += decision.repeats
            self._unsnapshotted[partition] = self._unsnapshotted.get(partition, 0) + len(decision.events)
        return outputs

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        """The claims' answers for the players' partitions, made from the signed jackpot.events records."""
        return answers.answers(self.config.answers_topic, sent) if self.config.answers_topic is not None else []

    def snapshot_image(self, partition: int, states: States, force: bool = False) -> snapshots.Image | None:
        """The networks' image when a snapshot is due (every `snapshot_every_events` events or `snapshot_every_s`
        seconds with anything new), or at shutdown (`force`) with anything new."""
        changed = self._unsnapshotted.get(partition, 0)
        if not changed:
            return None
        elapsed = time.monotonic() - self._snapshot_at.get(partition, 0.0)
        due = changed >= self.config.snapshot_every_events or elapsed >= self.config.snapshot_every_s
        if not (due or force):
            return None
        self._unsnapshotted[partition] = 0
        self._snapshot_at[partition] = time.monotonic()
        self.stats.snapshots += 1
        return snapshot.image(states, self._quarantined.get(partition, ()), lazy=True)

    async def acquired(self, restored: dict[int, Restored[States]]) -> None:
        self.stats.assigned = tuple(sorted(self.states))
        await self._send_meters(everything=True, locked=True)
        log.info("assigned partitions %s; restored %d events", self.stats.assigned, self.stats.restored_events)
        if self._on_ready is not None:
            self._on_ready()
            self._on_ready = None

    def released(self, partition: int, states: States) -> None:
        self.board.forget([pool_id for state in states.values() for pool_id in state.pools])
        for memo in (self._unsnapshotted, self._snapshot_at, self._quarantined):
            memo.pop(partition, None)
        self.stats.assigned = tuple(sorted(self.states))

    async def _publish_meters(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.config.meter_interval_s)
            await self._send_meters()

    async def _send_meters(self, everything: bool = False, locked: bool = False) -> None:
        """Meters of committed levels: read under the loop's lock (`locked`: the caller holds it already)."""
        if locked:
            meters = self._due(everything)
        else:
            async with self.loop.lock:
                meters = self._due(everything)
        if not meters or self._meter_producer is None:
            return
        records = signing.sign_records("jackpot", JACKPOT_METERS, [event_record(meter) for meter in meters])
        futures = [
            await self._meter_producer.send(self.config.meters_topic, r.value, key=r.key, headers=r.headers)
            for r in records
        ]
        await asyncio.gather(*futures)
        self.board.published(meters)
        observability.pool_levels(meters)
        self.stats.meters += len(meters)

    def _due(self, everything: bool) -> list[Any]:
        states = [state for states in self.states.values() for state in states.values()]
        return self.board.due(states, everything=everything)


def _traced(out: Output, traces: observability.BatchTraces, event: Any) -> Output:
    """An event with the trace of the request it answers (the batch's latest trace for aggregates)."""
    headers = traces.headers_for(getattr(event.data, "request_id", None))
    return replace(out, headers=[*out.headers, *headers]) if headers else out
