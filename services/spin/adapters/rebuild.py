"""Rebuild a partition's SpinBook from what the spin service wrote: spin.journal, spin.events, spin.jackpot-answers,
from the newest valid snapshot of the book on spin.snapshots when there is one (docs/snapshots.md)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer, TopicPartition

from services.spin.core import evolve as fold
from services.spin.core import image
from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from shared import observability, records, snapshots
from shared.config import Settings
from shared.crash import crash_point
from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer
from shared.partition_log import read_range
from shared.topics import SPIN_EVENTS, SPIN_JACKPOT_ANSWERS, SPIN_JOURNAL, SPIN_SNAPSHOTS

log = logging.getLogger("reelstream.spin.rebuild")
# Journal first (requests, seeds), then answers (which close requests), then jackpot answers (which need the claims).
FOLD_ORDER = (SPIN_JOURNAL, SPIN_EVENTS, SPIN_JACKPOT_ANSWERS)
# The fold yields to the event loop this often: the group heartbeats share it, and a long history folded in one go
# outlasted the session timeout (seen in the long chaos run: evicted and rebuilt again every ~17 s, never ready).
FOLD_YIELD_EVERY = 1000


@dataclass(frozen=True)
class RestoredBook:
    """A partition's book, the snapshot it started from (None: folded from the beginning), the records folded after
    it, the cursor of the partition's next snapshot (None: no snapshots topic) and where each folded topic stands."""

    book: SpinBook
    snapshot: snapshots.Snapshot | None
    folded: int
    cursor: snapshots.Cursor | None
    positions: dict[str, int]


async def rebuild_books(settings: Settings, catalog: Catalog, partitions: list[int]) -> dict[int, SpinBook]:
    """Fold every record of the given partitions from the beginning up to their current end; one book per partition."""
    books = {partition: SpinBook() for partition in partitions}
    await _fold_into(settings, catalog, books, {})
    return books


async def restore_book(settings: Settings, catalog: Catalog, partition: int, with_snapshots: bool) -> RestoredBook:
    """The newest valid snapshot on spin.snapshots plus the fold of the three topics after the positions it names;
    an older one when it cannot be used (unreadable, another format, ahead of the topics), else the fold from the
    beginning (also `with_snapshots=False`, or no snapshots topic)."""
    topic = settings.topic(SPIN_SNAPSHOTS)
    bootstrap = settings.kafka_bootstrap_servers
    collector = await snapshots.read(bootstrap, topic, SPIN_SNAPSHOTS, partition, "spin") if with_snapshots else None
    for snapshot in [*(collector.newest_first() if collector else []), None]:
        try:
            book = SpinBook() if snapshot is None else _load(snapshot)
        except ValueError as error:
            observability.alert(log, "snapshot-unusable", "snapshot %s not usable: %s", snapshot.snapshot_id, error)
            continue
        if snapshot is not None:
            crash_point("spin.mid_restore")  # a snapshot loaded, its tail not folded, nothing resumed
        starts = dict(snapshot.positions) if snapshot is not None else {}
        folded, ends = await _fold_into(settings, catalog, {partition: book}, starts)
        if any(starts.get(logical, 0) > ends[(logical, partition)] for logical in FOLD_ORDER):
            log.warning("snapshot %s is ahead of the spin topics' ends: not used", snapshot.snapshot_id)
            continue
        positions = {logical: ends[(logical, partition)] for logical in FOLD_ORDER}
        slot = snapshots.next_slot(snapshot)
        cursor = None if collector is None else snapshots.Cursor(positions[SPIN_EVENTS], None, slot, positions)
        return RestoredBook(book, snapshot, folded, cursor, positions)
    raise AssertionError("the fold from the beginning is always a candidate")


async def resume_book(settings: Settings, catalog: Catalog, partition: int, warm: RestoredBook) -> RestoredBook:
    """A book kept warm up to `warm.positions` (services/spin/adapters/warm.py) brought to the topics' ends, as a
    restore from a snapshot at those positions would: the caller has fenced the partition's previous owner."""
    folded, ends = await _fold_into(settings, catalog, {partition: warm.book}, warm.positions)
    positions = {logical: ends[(logical, partition)] for logical in FOLD_ORDER}
    cursor = warm.cursor
    if cursor is not None:
        cursor = snapshots.Cursor(positions[SPIN_EVENTS], None, cursor.slot, positions)
    return RestoredBook(warm.book, warm.snapshot, warm.folded + folded, cursor, positions)


def _load(snapshot: snapshots.Snapshot) -> SpinBook:
    if snapshot.format_version != image.FORMAT_VERSION:
        raise ValueError(f"state format {snapshot.format_version}, this build reads {image.FORMAT_VERSION}")
    missing = [logical for logical in FOLD_ORDER if logical not in snapshot.positions]
    if missing:
        raise ValueError(f"no position for {missing}")
    return image.decode(snapshot.state)


async def _fold_into(
    settings: Settings, catalog: Catalog, books: dict[int, SpinBook], starts: dict[str, int]
) -> tuple[int, dict[tuple[str, int], int]]:
    """Fold each partition's three topics from `starts` (by logical name; absent: the beginning) up to the ends seen
    now into its book, then keep what the live book keeps; returns the records folded and the ends."""
    if not books:
        return 0, {}
    reader = aio_consumer(
        bootstrap=settings.kafka_bootstrap_servers,
        role="spin",
        group_id=None,
        client_id="reelstream-spin-rebuild",
        **{**AIOKAFKA_READER_SAFETY, "auto_offset_reset": "earliest"},
    )
    await reader.start()
    try:
        tps = [TopicPartition(settings.topic(logical), partition) for logical in FOLD_ORDER for partition in books]
        offsets = {TopicPartition(settings.topic(name), p): at for name, at in starts.items() for p in books}
        history, ends = await _read_to_end(reader, tps, offsets)
    finally:
        await reader.stop()
    logical = {settings.topic(name): name for name in FOLD_ORDER}
    folded = 0
    for partition, book in books.items():
        found = {logical[tp.topic]: history[tp] for tp in tps if tp.partition == partition}
        folded += await fold_records(book, catalog, found)
        fold.finish_rebuild(book, catalog)
    return folded, {(logical[tp.topic], tp.partition): end for tp, end in ends.items()}


async def fold_records(book: SpinBook, catalog: Catalog, by_topic: dict[str, list]) -> int:
    """Fold a partition's records, each folded topic's (by logical name) in FOLD_ORDER, yielding to the event loop
    every FOLD_YIELD_EVERY records; returns how many."""
    folded = 0
    for logical in FOLD_ORDER:
        for record in by_topic.get(logical, ()):
            _fold_one(book, catalog, logical, record)
            book.now_ms = max(book.now_ms, record.timestamp)
            folded += 1
            if folded % FOLD_YIELD_EVERY == 0:
                await asyncio.sleep(0)
    return folded


async def _read_to_end(
    reader: AIOKafkaConsumer, tps: list[TopicPartition], starts: dict[TopicPartition, int]
) -> tuple[dict[TopicPartition, list], dict[TopicPartition, int]]:
    """Every record of the partitions from `starts` (absent or below the log start: the beginning) up to the end
    offsets seen now (all topics fetched together), and those ends."""
    reader.assign(tps)
    ends = await reader.end_offsets(tps)
    return await read_range(reader, starts, ends), ends


def _fold_one(book: SpinBook, catalog: Catalog, logical_topic: str, record) -> None:
    """Only what the spin service wrote is folded; anything else is quarantined (an alert, never fatal)."""
    message, problem = records.trusted_event(logical_topic, record)
    if message is None:
        log.error("alert: %s/%s/%s quarantined, not folded: %s", record.topic, record.partition, record.offset, problem)
        return
    proof = records.forwarded_proof(record) if logical_topic == SPIN_JACKPOT_ANSWERS else None
    fold.evolve(book, message, record.value, proof)
