"""The spin state machine on the shared transactional loop (pipelined): spin.requests, wallet.events,
spin.jackpot-answers and wallet.seamless in, one SpinBook per partition, one Kafka transaction per batch
(docs/architecture.md)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any

import orjson
from aiokafka import TopicPartition

from services.spin.adapters import outputs
from services.spin.adapters.answers import kept_answers, trimmed
from services.spin.adapters.latency import AnswerLatency
from services.spin.adapters.warm import WarmBooks
from services.spin.adapters import rebuild
from services.spin.adapters.rebuild import FOLD_ORDER
from services.spin.adapters import image as book_image
from services.spin.core.book import SpinBook
from services.spin.core.decide import SpinCore
from services.spin.core.effects import Context
from services.spin.core.progress import JACKPOT_TYPES, SEAMLESS_TYPES, WALLET_TYPES, reads_debit
from shared import emit, observability, snapshots
from shared.config import Settings
from shared.crash import crash_point
from shared.decision import Message
from shared.inbound import DATA_OR_KEY, QUARANTINE, Inbound, Input
from shared.events.wallet import WagerDebited
from shared.input_position import Output
from shared.loop import LoopConfig, LoopStats, Restored, Stateless, TransactionalLoop
from shared.repeats import Repeats
from shared.restoring import Report
from shared.topics import (
    SPIN_EVENTS,
    SPIN_JACKPOT_ANSWERS,
    SPIN_JOURNAL,
    SPIN_REQUESTS,
    SPIN_SNAPSHOTS,
    WALLET_EVENTS,
    WALLET_SEAMLESS,
    dlq_name,
)

log = logging.getLogger("reelstream.spin")
INPUTS = (SPIN_REQUESTS, WALLET_EVENTS, SPIN_JACKPOT_ANSWERS, WALLET_SEAMLESS)
# Every input's position rides on the batch's last journal fact, else its last answer: both folded by the restore
# (rebuild.py), so the transaction commits no offsets (docs/spin.md, "Three hops: the inputs' positions on the
# records").
POSITIONS_ON = (SPIN_JOURNAL, SPIN_EVENTS)
_WALLET_TYPE_NAMES = {cls.TYPE for cls in WALLET_TYPES}
_JACKPOT_TYPE_NAMES = {cls.TYPE for cls in JACKPOT_TYPES}
_SEAMLESS_TYPE_NAMES = {cls.TYPE for cls in SEAMLESS_TYPES}
MAX_BATCH_RECORDS = 500
_CRASH_AFTER = {
    "debit": "spin.after_debit",
    "place": "spin.after_place",
    "claim": "spin.after_claim",
    "settle": "spin.after_settlement",
}


@dataclass(frozen=True)
class SnapshotPolicy:
    """When a partition's book goes to spin.snapshots: after `every_records` decided input records, or `every_s`
    seconds with anything new, and at shutdown; `enabled=False`: never, and restores fold from the beginning."""

    every_records: int = 20_000
    every_s: float = 600.0
    enabled: bool = True


def loop_config(settings: Settings, **extra: Any) -> LoopConfig:
    """The spin's loop: its co-partitioned inputs (INPUTS), pipelined (the null saga benchmark runs the same)."""
    return LoopConfig(
        bootstrap=settings.kafka_bootstrap_servers,
        commands_topic=settings.topic(SPIN_REQUESTS),
        extra_inputs=tuple(settings.topic(logical) for logical in INPUTS[1:]),
        events_topic=settings.topic(SPIN_EVENTS),
        dlq_topic=settings.topic(dlq_name(SPIN_REQUESTS)),
        group_id=settings.group("spin"),
        service="spin",
        batch_max=MAX_BATCH_RECORDS,
        pipelined=True,
        **extra,
    )


class _SpinLoop(TransactionalLoop[SpinBook]):
    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        await super().on_partitions_assigned(assigned)
        self.service.ready_if_restored()  # an instance without new partitions is ready at once


class SpinRunner(Stateless[SpinBook]):
    """The spin's part of the loop: restore a partition's book, decide its records, its crash hooks."""

    def __init__(
        self, settings: Settings, ctx: Context, policy: SnapshotPolicy = SnapshotPolicy(), warm: WarmBooks | None = None
    ) -> None:
        self.settings, self.ctx, self.policy = settings, ctx, policy
        self.core = SpinCore(ctx)
        self.emitter = emit.Emitter(outputs.emits(ctx), self.core, settings.topic, None)
        self.warm = warm  # a warm spare's books (services/spin/adapters/warm.py), each taken by its first restore
        self.assigned = asyncio.Event()
        self.inputs = INPUT_SPECS  # spin.requests, wallet.events, spin.jackpot-answers, wallet.seamless
        self.stats = LoopStats()
        timing = {"every_s": policy.every_s, "every_count": policy.every_records, "stats": self.stats, "logger": log}
        self.restoring = rebuild.restoring(settings, ctx.catalog, policy.enabled, **timing)
        self.restored: dict[int, Report] = {}  # partition -> its restore (the snapshot and the records folded)
        self.answers: dict[int, Repeats] = {}  # each partition's answers as first written (answers.py)
        self.latency = AnswerLatency(lambda game: ctx.catalog.current(game) is not None)
        config = loop_config(
            settings,
            snapshots_topic=settings.topic(SPIN_SNAPSHOTS) if policy.enabled else None,
            snapshot_folds=tuple(settings.topic(logical) for logical in FOLD_ORDER),
            positions_on=tuple(settings.topic(logical) for logical in POSITIONS_ON),
        )
        self.loop = _SpinLoop(config, self, self.stats)

    @property
    def books(self) -> dict[int, SpinBook]:
        return self.loop.states

    @property
    def lock(self) -> asyncio.Lock:
        return self.loop.lock

    async def run(self, stop: asyncio.Event | None = None) -> None:
        await self.loop.run(stop or asyncio.Event())

    async def drain(self) -> None:
        """Every decided batch committed (call under `lock`)."""
        await self.loop.drain()

    async def restore(self, partition: int) -> Restored[SpinBook]:
        # A warm book was kept up with the topics while this spare waited: only the last step's tail to fold. Each
        # input resumes where the last carrying record (else the snapshot's manifest) says, or at the group's.
        warm = self.warm.take(partition) if self.warm is not None and self.policy.enabled else None
        restored = await self.restoring.restore(partition, warm)
        self.restored[partition] = restored.report
        self.answers[partition] = restored.report.held.answers
        return restored

    def snapshot_image(self, partition: int, book: SpinBook, force: bool = False) -> snapshots.Image | None:
        """The book's image when a snapshot is due (shared/loop.py encodes it off the event loop and puts it into a
        transaction after the batch just decided): after `policy.every_records` input records or `policy.every_s`
        seconds with anything new, or at shutdown (`force`) with anything new."""

        def make(quarantined: tuple[int, ...]) -> snapshots.Image:
            self.core.forget_expired(book)  # only what a restore would keep
            # The book captured now, encoded a piece per turn of the event loop (shared/snapshots.take): neither a
            # fork of a process of several hundred MB nor the whole encoding stalls the loop (docs/snapshots.md,
            # "Large state").
            return snapshots.Image(book_image.pieces(book, self.answers[partition]), book_image.FORMAT_VERSION)

        return self.restoring.image(partition, make, force)

    def decide(self, partition: int, book: SpinBook, inbounds: Iterable[Inbound]) -> list[Output]:
        answers = self.answers.get(partition)
        if answers is None:  # none yet: a partition decided unrestored (tests)
            answers = self.answers[partition] = kept_answers()
        made, read = self.emitter.batch(partition, book, inbounds, answers, self._decided)
        trimmed(book, answers)
        self.restoring.changed(partition, read)  # its restore folds its inputs too: a tail counted in records
        return made

    def _decided(self, book: SpinBook, found: Inbound, decision: Any) -> None:
        """What the runner watches of a Decision: a stray wager's alert, and each answer's latency."""
        if decision.stray is not None:
            _alert_stray(found.record, found.message, decision.stray)
        self.latency.observe(book, decision.answers)

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        """Each answer copied to its operator's topic, in the same transaction (outputs.py)."""
        return self.emitter.copies(sent)

    def acknowledged(self, partition: int, outputs: list[Output]) -> None:
        """The spin's crash hooks: written and acknowledged, the transaction not committed."""
        tags = {out.tag for out in outputs}
        if "seed" in tags:
            crash_point("spin.after_seed_persisted")
        for tag in sorted(tags & set(_CRASH_AFTER)):
            crash_point(_CRASH_AFTER[tag])

    def released(self, partition: int, book: SpinBook) -> None:
        self.restoring.released(partition)
        self.restored.pop(partition, None)
        self.answers.pop(partition, None)

    async def acquired(self, restored: dict[int, Restored[SpinBook]]) -> None:
        if self.warm is not None:  # the books of partitions this instance did not get: a later restore starts cold
            self.warm.books.clear()
            self.warm = None
        kept = sum(len(item.state.records) for item in restored.values())
        log.info("spin books rebuilt for partitions %s (%d requests)", sorted(restored), kept)
        self.ready_if_restored()

    def ready_if_restored(self) -> None:
        if not self.loop.restoring:
            self.assigned.set()


_DEBITED_TYPE = b'"type":"%s"' % WagerDebited.TYPE.encode()


def _unread_debit(book: SpinBook | None, value: bytes | None) -> bool:
    """A WagerDebited the spin has nothing to do with (`reads_debit`), told from its bytes before any signature check
    or validation (a large share of reading a combined spin's wallet facts); a record that is not plainly one is read
    as any other."""
    if book is None or not value or _DEBITED_TYPE not in value:
        return False
    try:
        raw = orjson.loads(value)
        wager_id = uuid.UUID(raw["data"]["transaction_id"])
    except (orjson.JSONDecodeError, TypeError, KeyError, ValueError, AttributeError):
        return False
    return raw.get("type") == WagerDebited.TYPE and not reads_debit(book, wager_id)


# How the loop reads the spin's inputs: requests anyone may write (answered, even when broken or misplaced); the
# wallet's facts and the jackpot's answers, quarantined unless their owner wrote them on their key's partition.
def _owned(logical: str, types: set[str], **more: Any) -> Input:
    """An input another service owns: the types the spin reads, the rest quarantined when not its owner's."""
    return Input(logical, kind="event", types=frozenset(types), untrusted=QUARANTINE, misplaced=QUARANTINE, **more)


INPUT_SPECS = (
    Input(SPIN_REQUESTS, public=True, check_key=False, misplaced=None, answer=DATA_OR_KEY),
    _owned(WALLET_EVENTS, _WALLET_TYPE_NAMES, skip=_unread_debit),
    _owned(SPIN_JACKPOT_ANSWERS, _JACKPOT_TYPE_NAMES, proofs=True),
    _owned(WALLET_SEAMLESS, _SEAMLESS_TYPE_NAMES),  # the seamless saga's answers to a seamless operator's wagers
)
SPECS = {spec.logical: spec for spec in INPUT_SPECS}  # by logical topic


def _alert_stray(record: Any, message: Message, request_id: uuid.UUID) -> None:
    """A wallet fact for a request no book of this partition knows (the core's judgement, SpinDecision.stray): no spin
    will settle or refund it (log + the alerts counter)."""
    where = (record.topic, record.partition, record.offset)
    text = "%s/%d/%d: %s for request %s, which no spin book knows (never settled or refunded by a spin)"
    observability.alert(log, "stray-wager", text, *where, message.payload.type, request_id)
