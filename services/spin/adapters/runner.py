"""The spin state machine on Kafka: one consumer over the co-partitioned inputs, books rebuilt on assignment.

Per fetched batch: handle every record in partition order, then produce the batch's journal facts and await them,
then its commands and answers and await them; the input offsets of written batches are committed about once a second.
A crash anywhere re-delivers what was not committed; the handlers are idempotent, the seed is reused from the journal,
and every emitted id is derived from its cause.

Pipelined: while one batch's writes are in flight (journal, outputs, commit: broker round trips), the next batch is
handled in memory (CPU), and its journal is written while the batch before writes its outputs. Journals stay in
batch order, outputs stay in batch order, and a batch's outputs wait for its own journal; at most one batch waits
behind the one in flight. The books run ahead of what is written by at most that batch, so a failed write stops the
runner (the restart rebuilds the books from the journal), and a revocation waits for the writes in flight.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import replace

from aiokafka import AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.errors import CommitFailedError, IllegalStateError

from services.spin.adapters.latency import observe_answers
from services.spin.adapters.rebuild import rebuild_books
from services.spin.core import fold
from services.spin.core.book import SpinBook
from services.spin.core.effects import Context, Effects, Out, Refused
from services.spin.core.progress import JACKPOT_TYPES, WALLET_TYPES, on_jackpot_answer, on_wallet_event, stray_wager
from services.spin.core.requests import on_request
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS, Settings
from shared import observability
from shared.crash import crash_point
from shared import records
from shared.events import DecodeError, decode, may_be
from shared.kafka import (
    AIOKAFKA_CONSUMER_SAFETY,
    AIOKAFKA_PRODUCER_SAFETY,
    FetchPacing,
    aio_consumer,
    aio_producer,
    group_membership,
    service_fetch_options,
)
from shared.topics import SPIN_JACKPOT_ANSWERS, SPIN_REQUESTS, WALLET_EVENTS, dlq_name

log = logging.getLogger("reelstream.spin")
INPUTS = (SPIN_REQUESTS, WALLET_EVENTS, SPIN_JACKPOT_ANSWERS)
_WALLET_TYPE_NAMES = {cls.TYPE for cls in WALLET_TYPES}
_JACKPOT_TYPE_NAMES = {cls.TYPE for cls in JACKPOT_TYPES}
MAX_BATCH_RECORDS = 500
PRUNE_EVERY_RECORDS = 5000
# Kinds of outputs that land on the book's own partition (they are folded back when the book is rebuilt). Answers go
# by their key, the player's partition: the book's own for a request on its partition, and the named player's for a
# refusal of a record that sat elsewhere (keyless, or keyed by another player).
_SAME_PARTITION = frozenset({"journal", "seed"})
_CRASH_AFTER = {"debit": "spin.after_debit", "claim": "spin.after_claim", "settle": "spin.after_settlement"}
# Input offsets are committed at most this often (and on revocation and stop), not once per batch: a crash re-delivers
# at most this much more, which the idempotent handlers absorb, and at 60 spins/s the per-batch commits were 0.45
# broker requests a spin (docs/spin.md, "Latency").
COMMIT_INTERVAL_S = 1.0
FINAL_COMMIT_TIMEOUT_S = 5.0


def consumer_timeouts(environ=os.environ) -> dict[str, int]:
    return {**group_membership(environ), **service_fetch_options(environ)}


class SpinRunner(ConsumerRebalanceListener):
    def __init__(self, settings: Settings, ctx: Context, producer: AIOKafkaProducer) -> None:
        self.settings, self.ctx, self.producer = settings, ctx, producer
        self.books: dict[int, SpinBook] = {}
        self.lock = asyncio.Lock()
        self.assigned = asyncio.Event()
        self.logical = {settings.topic(name): name for name in INPUTS}
        self.handled = 0
        self.inflight: asyncio.Task | None = None  # the latest batch's writes (each awaits its predecessor's first)
        self.journaled: asyncio.Task | None = None  # the latest batch's journal write (likewise)
        self.uncommitted: dict = {}  # input offsets whose batches are written, not yet committed
        self.committed_at = 0.0
        self._rebuilding: dict[int, asyncio.Task] = {}  # partition -> the background rebuild of its book
        self.consumer = aio_consumer(
            bootstrap=settings.kafka_bootstrap_servers,
            role="spin",
            group_id=settings.group("spin"),
            client_id="reelstream-spin",
            partition_assignment_strategy=(RangePartitionAssignor,),
            **{**AIOKAFKA_CONSUMER_SAFETY, **consumer_timeouts()},
        )
        observability.watch(self.consumer)

    async def on_partitions_revoked(self, revoked) -> None:
        partitions = {tp.partition for tp in revoked}
        tasks = {self._rebuilding.pop(p) for p in partitions if p in self._rebuilding}
        for task in tasks:
            task.cancel()  # the next owner rebuilds these books
        await asyncio.gather(*tasks, return_exceptions=True)
        again = sorted(p for p, task in self._rebuilding.items() if task in tasks)
        async with self.lock:  # the batch in hand is finished and committed first
            await self._drain()
            observability.revoked(partitions)
            for partition in partitions:
                self.books.pop(partition, None)
        for partition in again:
            del self._rebuilding[partition]
        self._schedule([tp for tp in self.consumer.assignment() if tp.partition in again])

    async def on_partitions_assigned(self, assigned) -> None:
        """Rebuild in the background: aiokafka sends no heartbeat while this callback runs, so a rebuild longer than
        the session timeout inside it got the member evicted, and every rejoin rebuilt again (seen with ~1,000 hostile
        records in the history on a loaded machine). The new partitions stay paused until their books are rebuilt."""
        fresh = {tp.partition for tp in assigned} - set(self.books) - set(self._rebuilding)
        self._schedule([tp for tp in assigned if tp.partition in fresh])
        if not self._rebuilding:
            self.assigned.set()

    def _schedule(self, tps: list) -> None:
        partitions = sorted({tp.partition for tp in tps})
        if not partitions:
            return
        self.consumer.pause(*tps)
        task = asyncio.create_task(self._rebuild(partitions, tps))
        for partition in partitions:
            self._rebuilding[partition] = task

    async def _rebuild(self, partitions: list[int], tps: list) -> None:
        async with observability.restoring(partitions):
            books = await rebuild_books(self.settings, self.ctx.catalog, partitions)
        async with self.lock:
            self.books.update(books)
            for partition in partitions:
                self._rebuilding.pop(partition, None)
            owned = set(self.consumer.assignment())
            self.consumer.resume(*[tp for tp in tps if tp in owned])
        log.info(
            "spin books rebuilt for partitions %s (%d requests)",
            partitions,
            sum(len(book.records) for book in books.values()),
        )
        if not self._rebuilding:
            self.assigned.set()

    async def run(self) -> None:
        self.consumer.subscribe(topics=[self.settings.topic(name) for name in INPUTS], listener=self)
        await self.consumer.start()
        pacing = FetchPacing.from_env()
        try:
            while True:
                batch = await self.consumer.getmany(timeout_ms=200, max_records=MAX_BATCH_RECORDS)
                pacing.after_poll(self.consumer, bool(batch))
                observability.consumed(batch)
                for rebuild in [task for task in self._rebuilding.values() if task.done()]:
                    rebuild.result()  # a failed rebuild stops the runner
                if self.inflight is not None and self.inflight.done():
                    self.inflight.result()  # a failed write stops the runner even when no batch follows
                if batch:
                    async with self.lock:
                        await self._process(batch)
        finally:
            for task in set(self._rebuilding.values()):
                task.cancel()
            for task in (self.inflight, self.journaled):
                if task is not None and not task.done():
                    task.cancel()  # not written: re-delivered to whoever handles these partitions next
            try:
                # What is written, so a restart re-handles less; bounded: with the broker gone it would retry forever.
                await asyncio.wait_for(self._commit(), FINAL_COMMIT_TIMEOUT_S)
            except Exception as error:  # noqa: BLE001 - stopping anyway; the next owner re-handles idempotently
                log.warning("final offset commit failed: %r", error)
            await self.consumer.stop()

    async def _process(self, batch) -> None:
        effects, offsets, polled_at = Effects(), {}, time.perf_counter()
        assignment = self.consumer.assignment()
        with observability.handler_timer():
            for tp, polled in batch.items():
                book = self.books.get(tp.partition)
                if tp not in assignment:
                    continue  # revoked meanwhile: the new owner handles these records
                if book is None:  # fetched before the partition was paused for its rebuild: read again afterwards
                    self.consumer.seek(tp, polled[0].offset)
                    continue
                for record in polled:
                    self._handle(tp, book, record, effects)
                    offsets[tp] = record.offset + 1
        previous = self.inflight
        self.journaled = asyncio.create_task(self._write_journal(self.journaled, effects.journal))
        self.inflight = asyncio.create_task(self._write(previous, self.journaled, effects.outputs, offsets, polled_at))
        if previous is not None:
            await previous  # back-pressure: the batch before this one is written before the next poll is handled

    async def _drain(self) -> None:
        if self.inflight is not None:
            await self.inflight
        await self._commit()

    async def _write_journal(self, previous: asyncio.Task | None, journal: list[Out]) -> None:
        """The batch's journal facts acknowledged, after the journal of the batch before."""
        if previous is not None:
            await previous
        await self._produce(journal)
        if any(out.kind == "seed" for out in journal):
            crash_point("spin.after_seed_persisted")

    async def _write(
        self,
        previous: asyncio.Task | None,
        journaled: asyncio.Task,
        outputs: list[Out],
        offsets: dict,
        polled_at: float,
    ) -> None:
        """Outputs acknowledged once the batch's journal is (a seed is persisted before anything reveals the outcome)
        and the batch before is written; then the input offsets are committed (about once a second)."""
        await journaled
        if previous is not None:
            await previous
        await self._produce(outputs)
        for kind in sorted({out.kind for out in outputs} & set(_CRASH_AFTER)):
            crash_point(_CRASH_AFTER[kind])
        observability.batch_done(polled_at)
        self.uncommitted.update(offsets)
        if time.monotonic() - self.committed_at >= COMMIT_INTERVAL_S:
            await self._commit()

    async def _commit(self) -> None:
        if not self.uncommitted:
            return
        assignment = self.consumer.assignment()
        offsets = {tp: offset for tp, offset in self.uncommitted.items() if tp in assignment}  # the rest: re-handled
        self.uncommitted, self.committed_at = {}, time.monotonic()
        if not offsets:
            return
        crash_point("spin.before_commit")
        try:
            await self.consumer.commit(offsets)
        except (
            CommitFailedError,
            IllegalStateError,
        ) as error:  # a rebalance took the partitions: re-handled, idempotently
            log.warning("offset commit failed (%s); the records will be handled again", error)

    def _handle(self, tp, book: SpinBook, record, effects: Effects) -> None:
        book.now_ms = max(book.now_ms, record.timestamp)
        logical = self.logical[tp.topic]
        with observability.consume_span(f"spin {logical}", record.headers, tp.partition, record.value) as traced:
            if logical == SPIN_REQUESTS:
                found = on_request(
                    book,
                    self.ctx,
                    record.value,
                    record.key,
                    record.timestamp,
                    tp.partition,
                    record.offset,
                    len(self.consumer.partitions_for_topic(tp.topic) or ()),
                )
            else:
                found = self._handle_event(logical, book, record)
        effects.journal.extend(
            replace(out, partition=tp.partition, headers=out.headers + traced) for out in found.journal
        )
        effects.outputs.extend(
            _dead_letter(logical, record, out)
            if out.refused
            else replace(
                out, partition=tp.partition if out.kind in _SAME_PARTITION else None, headers=out.headers + traced
            )
            for out in found.outputs
        )
        observe_answers(book, found.outputs)
        self.handled += 1
        if self.handled % PRUNE_EVERY_RECORDS == 0:
            fold.prune(book, self.ctx.catalog, book.now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)

    def _handle_event(self, logical: str, book: SpinBook, record) -> Effects:
        wanted = _WALLET_TYPE_NAMES if logical == WALLET_EVENTS else _JACKPOT_TYPE_NAMES
        if not may_be(record.value, wanted):
            return Effects()  # other facts on the topic (deposits, limits, ...) are none of the spin's business
        problem = records.provenance_problem(logical, record.headers, record.value) or records.placement_problem(
            logical, record, len(self.consumer.partitions_for_topic(record.topic) or ())
        )
        if problem is not None:  # quarantined: never applied (the projector dead-letters what is on wallet.events)
            observability.alert(log, "quarantined", "%s/%d/%d quarantined, not applied: %s", *_at(record), problem)
            return Effects()
        try:
            event = decode(record.value, expect_kind="event")
        except DecodeError as error:
            return Effects(
                outputs=[
                    Out(dlq_name(logical), b"", b"", "dlq", refused=Refused("UNDECODABLE", error.reason, error.field))
                ]
            )
        if logical == WALLET_EVENTS:
            if (stray := stray_wager(book, event)) is not None:
                observability.alert(
                    log,
                    "stray-wager",
                    "%s/%d/%d: %s for request %s, which no spin book knows (never settled or refunded by a spin)",
                    *_at(record),
                    event.type,
                    stray,
                )
            return on_wallet_event(book, self.ctx, event, record.timestamp)
        return on_jackpot_answer(book, self.ctx, event, record.value, record.timestamp)

    async def _produce(self, outs: list[Out]) -> None:
        if not outs:
            return
        futures = []
        for out in outs:
            # A dead letter's headers are complete (shared/records.py); everything else is written by the spin service.
            headers = list(out.headers) if out.kind == "dlq" else records.headers_for("spin", out.headers)
            futures.append(
                await self.producer.send(
                    self.settings.topic(out.topic),
                    value=out.value,
                    key=out.key or None,
                    partition=out.partition,
                    headers=headers,
                )
            )
        await asyncio.gather(*futures)
        for out in outs:
            observability.produced(self.settings.topic(out.topic), out.value, out.headers)


def _at(record) -> tuple[str, int, int]:
    return record.topic, record.partition, record.offset


def _dead_letter(logical: str, record, out: Out) -> Out:
    """The refused input record itself, bytes untouched, with why and where (shared/records.py)."""
    letter = records.dead_letter(
        logical,
        record.topic,
        record,
        code=out.refused.code,
        reason=out.refused.reason,
        field=out.refused.field,
        consumer="spin",
    )
    return Out(letter.topic, letter.key or b"", letter.value, "dlq", tuple(letter.headers))


def producer_for(settings: Settings) -> AIOKafkaProducer:
    return aio_producer(
        settings.kafka_bootstrap_servers,
        role="spin",
        client_id="reelstream-spin",
        **{**AIOKAFKA_PRODUCER_SAFETY, "linger_ms": 1},
    )
