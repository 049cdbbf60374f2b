"""Rebuild a partition's SpinBook, with its answers as first written (answers.py), from what the spin service wrote:
spin.journal, spin.events, spin.jackpot-answers, from the newest valid snapshot of the book on spin.snapshots when
there is one (docs/snapshots.md)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from dataclasses import replace
from functools import partial
from typing import Any

from aiokafka import TopicPartition

from services.spin.core import evolve as fold
from services.spin.adapters import image
from services.spin.adapters.answers import Partition, read_back, trimmed
from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from shared import records, snapshots
from shared.config import Settings
from shared.decision import Message
from shared.input_position import recorded_inputs
from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer
from shared.partition_log import read_range
from shared.repeats import Repeats
from shared.restoring import RestoreSpec, Restoring
from shared.topics import SPIN_EVENTS, SPIN_JACKPOT_ANSWERS, SPIN_JOURNAL, SPIN_REQUESTS, SPIN_SNAPSHOTS

log = logging.getLogger("reelstream.spin.rebuild")
# Journal first (requests, seeds), then answers (which close requests), then jackpot answers (which need the claims).
FOLD_ORDER = (SPIN_JOURNAL, SPIN_EVENTS, SPIN_JACKPOT_ANSWERS)
# The fold yields to the event loop this often: the group heartbeats share it, and a long history folded in one go
# outlasted the session timeout (the member was evicted and rebuilt again and again, never ready).
FOLD_YIELD_EVERY = 1000
# A restore reads each topic partition in chunks of this many offsets and folds the three topics merged by broker time
# (the order the live book saw them), pruning as the live path does: its memory is the de-duplication window plus a
# chunk a topic, not the partition's whole history (read whole, a long history's rebuild ran out of memory).
READ_CHUNK = 5000
PRUNE_EVERY_RECORDS = 5000
# A record a fact touched less than this long ago (broker time) is not pruned on the way: the rest of that fact's
# transaction may still be ahead in another topic (the merge orders by each record's create time, and a transaction's
# records can be stamped up to its timeout apart: aiokafka's default transaction_timeout_ms, which the spin keeps).
# Pruned on message time alone, a history whose answers were stamped a few ms before their seeds lost a request
# between the two and re-created it without its seed (an invariant stopped the spin; docs/snapshots.md).
TRANSACTION_SPAN_MS = 60_000


async def rebuild_books(settings: Settings, catalog: Catalog, partitions: list[int]) -> dict[int, Partition]:
    """Fold every record of the given partitions from the beginning up to their current end; one book (with its
    answers) per partition."""
    held = {partition: Partition() for partition in partitions}
    await _fold_into(settings, catalog, held, {})
    return held


def restoring(settings: Settings, catalog: Catalog, with_snapshots: bool = True, **timing: Any) -> Restoring:
    """The spin's restores (`with_snapshots=False`: every restore folds from the beginning; `timing`: Restoring's):
    `fold(partition)` the newest usable snapshot on spin.snapshots plus the three topics after the positions it names,
    `fold(partition, warm)` a book kept warm up to `warm.positions` (warm.py) brought to the topics' ends."""
    tail = partial(_tail, settings, catalog)
    spec = RestoreSpec(
        "spin", SPIN_SNAPSHOTS, SPIN_REQUESTS, _load, lambda p: Partition(), tail=tail, state=lambda held: held.book
    )
    snapshots_topic = settings.topic(SPIN_SNAPSHOTS) if with_snapshots else None
    return Restoring(spec, settings.kafka_bootstrap_servers, settings.topic(SPIN_EVENTS), snapshots_topic, **timing)


def _tail(settings: Settings, catalog: Catalog, partition: int) -> snapshots.Tail:
    """Folding the book's three topics on from where a restoration stands (`positions`, by logical name; absent: the
    beginning) to their ends; None when a topic ends before that (recreated). `inputs` takes the further of each
    input's position and the one each folded record carries."""

    async def tail(start: snapshots.Restoration) -> snapshots.Restoration | None:
        inputs = dict(start.inputs)
        held, starts = {partition: start.state}, start.positions
        folded, ends = await _fold_into(settings, catalog, held, starts, inputs)
        if any(starts.get(logical, 0) > ends[(logical, partition)] for logical in FOLD_ORDER):
            return None
        positions = {logical: ends[(logical, partition)] for logical in FOLD_ORDER}
        cursor = start.cursor
        if cursor is not None:
            cursor = snapshots.Cursor(positions[SPIN_EVENTS], None, cursor.slot, positions, dict(inputs))
        done = {"folded": start.folded + folded, "events_end": positions[SPIN_EVENTS], "cursor": cursor}
        return replace(start, **done, positions=positions, inputs=inputs)

    return tail


def _load(snapshot: snapshots.Snapshot) -> Partition:
    if snapshot.format_version != image.FORMAT_VERSION:
        raise ValueError(f"state format {snapshot.format_version}, this build reads {image.FORMAT_VERSION}")
    missing = [logical for logical in FOLD_ORDER if logical not in snapshot.positions]
    if missing:
        raise ValueError(f"no position for {missing}")
    return image.decode(snapshot.state)


async def _fold_into(
    settings: Settings, catalog: Catalog, held: dict[int, Partition], starts: dict[str, int], inputs=None
) -> tuple[int, dict[tuple[str, int], int]]:
    """Fold each partition's three topics from `starts` (by logical name; absent: the beginning) up to the ends seen
    now into its book and answers, streamed (`fold_streams`, each record by `_fold_one`, advancing `inputs` when
    given), then keep what the live book keeps; returns the records folded and the ends."""
    if not held:
        return 0, {}
    books = {partition: item.book for partition, item in held.items()}
    answers = {partition: item.answers for partition, item in held.items()}

    def fold_one(book: SpinBook, catalog: Catalog, logical_topic: str, record) -> uuid.UUID | None:
        return _fold_one(book, catalog, logical_topic, record, inputs, answers[record.partition])

    reader = aio_consumer(
        bootstrap=settings.kafka_bootstrap_servers,
        role="spin",
        group_id=None,
        client_id="reelstream-spin-rebuild",
        **{**AIOKAFKA_READER_SAFETY, "auto_offset_reset": "earliest"},
    )
    await reader.start()
    try:
        logical = {settings.topic(name): name for name in FOLD_ORDER}
        tps = [TopicPartition(settings.topic(name), partition) for name in FOLD_ORDER for partition in books]
        reader.assign(tps)
        ends = await reader.end_offsets(tps)
        beginnings = await reader.beginning_offsets(tps)
        first = {tp: max(beginnings[tp], starts.get(logical[tp.topic], 0)) for tp in tps}

        async def read(chunks: dict[TopicPartition, tuple[int, int]]) -> dict[TopicPartition, list]:
            return await read_range(
                reader, {tp: at for tp, (at, _) in chunks.items()}, {tp: end for tp, (_, end) in chunks.items()}
            )

        names = {tp: (logical[tp.topic], tp.partition) for tp in tps}
        folded = await fold_streams(books, catalog, names, first, ends, read, fold_one=fold_one)
    finally:
        await reader.stop()
    for item in held.values():
        fold.finish_rebuild(item.book, catalog)
        trimmed(item.book, item.answers)
    return folded, {(logical[tp.topic], tp.partition): end for tp, end in ends.items()}


async def fold_streams(
    books: dict[int, SpinBook],
    catalog: Catalog,
    names: dict,
    first: dict,
    ends: dict,
    read,
    chunk: int = READ_CHUNK,
    prune_every: int = PRUNE_EVERY_RECORDS,
    fold_one=None,
) -> int:
    """Fold every partition's topics (`names`: topic partition -> (logical name, partition)) from `first` up to `ends`
    into its book, read `chunk` offsets a topic partition at a time (`read({tp: (from, to)})` -> their records),
    each book's three topics merged by broker time: the head with the earliest timestamp is folded next, a tie in
    FOLD_ORDER (journal, answers, jackpot answers), and each topic's records stay in their own order. A topic not read
    to its end with no record left in hand stops the merge until its next chunk is read: its next record may be the
    earliest. Every `prune_every` records folded, each book keeps only what the live book keeps. `fold_one(book,
    catalog, logical name, record)`: how a record is folded (default: only what the spin service wrote, `_fold_one`).
    """
    fold_one = fold_one or _fold_one
    at = dict(first)
    held: dict[Any, deque] = {tp: deque() for tp in names}
    by_partition: dict[int, dict[str, Any]] = {}
    for tp, (name, partition) in names.items():
        by_partition.setdefault(partition, {})[name] = tp
    folded, since_prune = 0, dict.fromkeys(by_partition, 0)
    touched: dict[int, dict] = {partition: {} for partition in by_partition}  # request id -> broker ms, per book
    while True:
        dry = {tp: (at[tp], min(at[tp] + chunk, ends[tp])) for tp in names if not held[tp] and at[tp] < ends[tp]}
        if dry:
            for tp, records in (await read(dry)).items():
                held[tp].extend(records)
            at.update({tp: to for tp, (_, to) in dry.items()})
        for partition, tps in by_partition.items():
            book, recent = books[partition], touched[partition]
            done = await _merge_fold(book, catalog, tps, held, at, ends, fold_one, recent)
            folded, since_prune[partition] = folded + done, since_prune[partition] + done
            if since_prune[partition] >= prune_every:
                since_prune[partition] = 0
                horizon = book.now_ms - TRANSACTION_SPAN_MS
                for request_id in [rid for rid, ms in recent.items() if ms < horizon]:
                    del recent[request_id]
                fold.prune(book, catalog, fold.window_start(book.now_ms), keep=recent)
        if all(not held[tp] and at[tp] >= ends[tp] for tp in names):
            return folded


async def _merge_fold(
    book: SpinBook, catalog: Catalog, tps: dict[str, Any], held: dict, at: dict, ends: dict, fold_one, touched: dict
) -> int:
    """Fold the records in hand of one book's topics in merged order, while every topic not read to its end has one;
    `touched` gets the broker time of each request id a folded fact names."""
    folded = 0
    order = [name for name in FOLD_ORDER if name in tps]
    while True:
        if any(not held[tps[name]] and at[tps[name]] < ends[tps[name]] for name in order):
            return folded
        heads = [name for name in order if held[tps[name]]]
        if not heads:
            return folded
        name = min(heads, key=lambda n: (held[tps[n]][0].timestamp, order.index(n)))
        record = held[tps[name]].popleft()
        request_id = fold_one(book, catalog, name, record)
        if request_id is not None:
            touched[request_id] = record.timestamp
        fold.seen(book, record.timestamp)
        folded += 1
        if folded % FOLD_YIELD_EVERY == 0:
            await asyncio.sleep(0)


async def fold_records(
    held: Partition, catalog: Catalog, by_topic: dict[str, list], inputs: dict[str, int] | None = None
) -> int:
    """Fold a partition's records into its book and answers, each folded topic's (by logical name) in FOLD_ORDER,
    yielding to the event loop every FOLD_YIELD_EVERY records; returns how many. `inputs`: the book's input positions,
    advanced by the records that carry them."""
    folded, book = 0, held.book
    for logical in FOLD_ORDER:
        for record in by_topic.get(logical, ()):
            _fold_one(book, catalog, logical, record, inputs, held.answers)
            fold.seen(book, record.timestamp)
            folded += 1
            if folded % FOLD_YIELD_EVERY == 0:
                await asyncio.sleep(0)
    return folded


def _fold_one(
    book: SpinBook,
    catalog: Catalog,
    logical_topic: str,
    record,
    inputs: dict[str, int] | None = None,
    answers: Repeats | None = None,
) -> uuid.UUID | None:
    """Only what the spin service wrote is folded; anything else is quarantined (an alert, never fatal). Returns the
    request id the fact names (None: none, or not folded). `inputs` (when given) takes the further of each input's
    position and the one the record carries, read only from a record the spin service wrote (signed); `answers`
    each answer the book keeps, as written (None: the book alone)."""
    message, problem = records.trusted_event(logical_topic, record)
    if message is None:
        log.error("alert: %s/%s/%s quarantined, not folded: %s", record.topic, record.partition, record.offset, problem)
        return None
    proof = records.forwarded_proof(record) if logical_topic == SPIN_JACKPOT_ANSWERS else None
    read = Message(message, record.timestamp, proof=proof)
    if answers is None:
        fold.evolve(book, read)
    else:
        read_back(book, answers, read, (record.key, record.value))
    if inputs is not None:
        for topic, offset in recorded_inputs(record.headers).items():  # the positions of the transaction that wrote it
            inputs[topic] = max(offset, inputs.get(topic, 0))
    return getattr(message.data, "request_id", None)
