"""The jackpot on the shared transactional loop (not pipelined): jackpot.commands and jackpot.internal in, decided one
command at a time by the core, jackpot.events and committed levels' meters out (docs/jackpot.md)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aiokafka import AIOKafkaProducer

from shared import emit, observability, signing, snapshots
from shared.decision import Decision
from shared.events.base import packable_types
from shared.inbound import Inbound
from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer
from shared.loop import LoopConfig, LoopStats, loop_config, Restored, ServiceConfig, Stateless, TransactionalLoop
from shared.pools import PoolsConfig, load_pools
from shared.restoring import Restoring
from shared.warm import WarmStates
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_INTERNAL, JACKPOT_METERS, SPIN_JACKPOT_ANSWERS
from shared.topics import dlq_name

from services.jackpot.adapters.drop_key import live_secrets
from services.jackpot.adapters.meters import MeterBoard
from shared.input_position import Output
from services.jackpot.adapters import restore, snapshot
from services.jackpot.adapters.records import EMITS, INPUTS, event_record
from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.decide import JackpotCore, States

log = logging.getLogger("reelstream.jackpot")


@dataclass(frozen=True, kw_only=True)
class JackpotConfig(ServiceConfig):
    """The jackpot's loop (ServiceConfig: jackpot.internal is its internal-command topic) and its own settings."""

    meters_topic: str
    meter_interval_s: float = 0.5
    snapshot_every_events: int = 5_000
    snapshot_every_s: float = 60.0
    # spin.jackpot-answers (physical name): each claim's answer, copied there keyed by player id in the transaction
    # that writes it to jackpot.events (services/jackpot/adapters/records.py). None: jackpot.events alone.
    answers_topic: str | None = None

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
        # A transaction's contributions: one record a network and run.
        return loop_config(self, "jackpot", packable=packable_types(JACKPOT_EVENTS))


@dataclass
class Stats(LoopStats):
    repeats: int = 0
    meters: int = 0
    assigned: tuple[int, ...] = field(default_factory=tuple)


class JackpotService(Stateless[States]):
    """The jackpot's part of the loop: restore the partition's networks, decide each command, publish meters."""

    def __init__(
        self,
        config: JackpotConfig,
        pools: PoolsConfig | None = None,
        secrets: DropSecrets | None = None,
        warm: WarmStates | None = None,
    ) -> None:
        self.config = config
        self.warm = warm  # a spare's networks, taken over on this instance's first assignment (shared/warm.py)
        self.pools = pools or load_pools()
        needs_key = any(network.drop_pools() for network in self.pools.networks)
        self.secrets = secrets if secrets is not None or not needs_key else live_secrets()
        self.core = JackpotCore(self.pools, self.secrets)
        self.board = MeterBoard()
        self.stats = Stats()
        self._meter_producer: AIOKafkaProducer | None = None
        self._on_ready: Callable[[], None] | None = None
        timing = {"every_s": config.snapshot_every_s, "every_count": config.snapshot_every_events, "logger": log}
        where = (config.bootstrap, config.events_topic, config.snapshots_topic)
        self.restoring = Restoring(restore.spec(self.pools), *where, **timing, stats=self.stats)
        # The one topic it names besides its events topic: its answers' copies' (spin.jackpot-answers; None: none).
        answers = config.answers_topic
        self.emitter = emit.Emitter(EMITS, self.core, lambda _: answers, config.commands_topic, self.restoring)
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
        return await self.restoring.restore(partition, self.warm.take(partition) if self.warm is not None else None)

    inputs = INPUTS  # jackpot.commands, then jackpot.internal: read by the loop (shared/inbound.py)

    def decide(self, partition: int, states: States, inbounds: Iterable[Inbound]) -> list[Output]:
        """Each read command decided by the core, one at a time in partition order; the events and dead letters to
        publish (the loop dead-letters what it refused reading, and packs runs of contributions)."""
        return self.emitter.batch(partition, states, inbounds, decided=self._counted)[0]

    def _counted(self, states: States, found: Inbound, decision: Decision) -> None:
        self.stats.repeats += decision.repeats

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        """The claims' answers for the players' partitions, made from the signed jackpot.events records."""
        return self.emitter.copies(sent)

    def snapshot_image(self, partition: int, states: States, force: bool = False) -> snapshots.Image | None:
        """The networks' image when a snapshot is due (shared/restoring.py)."""
        return self.restoring.image(partition, partial(snapshot.image, states, lazy=True), force)

    async def acquired(self, restored: dict[int, Restored[States]]) -> None:
        self.stats.assigned = tuple(sorted(self.states))
        if self.warm is not None:  # the partitions not taken went to other instances: their networks are stale now
            self.warm.drop()
            self.warm = None
        await self._send_meters(everything=True, locked=True)
        log.info("assigned partitions %s; restored %d events", self.stats.assigned, self.stats.restored_events)
        if self._on_ready is not None:
            self._on_ready()
            self._on_ready = None

    def released(self, partition: int, states: States) -> None:
        self.board.forget([pool_id for state in states.values() for pool_id in state.pools])
        self.restoring.released(partition)
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
