"""Rebuild a partition's SpinBook from what the spin service wrote: spin.journal, spin.events, spin.jackpot-answers."""

from __future__ import annotations

import asyncio
import logging

from aiokafka import AIOKafkaConsumer, TopicPartition

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from shared import records
from shared.config import Settings
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, aio_consumer
from shared.topics import SPIN_EVENTS, SPIN_JACKPOT_ANSWERS, SPIN_JOURNAL

log = logging.getLogger("reelstream.spin.rebuild")
# Journal first (requests, seeds), then answers (which close requests), then jackpot answers (which need the claims).
FOLD_ORDER = (SPIN_JOURNAL, SPIN_EVENTS, SPIN_JACKPOT_ANSWERS)
# The fold yields to the event loop this often: the group heartbeats share it, and a long history folded in one go
# outlasted the session timeout (seen in the long chaos run: evicted and rebuilt again every ~17 s, never ready).
FOLD_YIELD_EVERY = 1000


async def rebuild_books(settings: Settings, catalog: Catalog, partitions: list[int]) -> dict[int, SpinBook]:
    """Fold every record of the given partitions up to their current end; returns one book per partition."""
    books = {partition: SpinBook() for partition in partitions}
    if not partitions:
        return books
    reader = aio_consumer(
        bootstrap=settings.kafka_bootstrap_servers,
        role="spin",
        group_id=None,
        client_id="reelstream-spin-rebuild",
        **{**AIOKAFKA_CONSUMER_SAFETY, "auto_offset_reset": "earliest"},
    )
    await reader.start()
    try:
        tps = [TopicPartition(settings.topic(logical), partition) for logical in FOLD_ORDER for partition in partitions]
        history = await _read_to_end(reader, tps)
    finally:
        await reader.stop()
    logical = {settings.topic(name): name for name in FOLD_ORDER}
    for tp in tps:  # in FOLD_ORDER
        book = books[tp.partition]
        for index, record in enumerate(history[tp]):
            _fold_one(book, catalog, logical[tp.topic], record)
            book.now_ms = max(book.now_ms, record.timestamp)
            if index % FOLD_YIELD_EVERY == FOLD_YIELD_EVERY - 1:
                await asyncio.sleep(0)
    for book in books.values():
        fold.finish_rebuild(book, catalog)
    return books


async def _read_to_end(reader: AIOKafkaConsumer, tps: list[TopicPartition]) -> dict[TopicPartition, list]:
    """Every record of the partitions up to the end offsets seen now (all topics fetched together)."""
    reader.assign(tps)
    ends = await reader.end_offsets(tps)
    starts = await reader.beginning_offsets(tps)
    history: dict[TopicPartition, list] = {tp: [] for tp in tps}
    remaining = {tp for tp in tps if ends[tp] > starts[tp]}
    for tp in remaining:
        reader.seek(tp, starts[tp])
    while remaining:
        batch = await reader.getmany(*remaining, timeout_ms=500, max_records=5000)
        for tp, polled in batch.items():
            history[tp].extend(record for record in polled if record.offset < ends[tp])
        for tp in list(remaining):
            if await reader.position(tp) >= ends[tp]:
                remaining.discard(tp)
    return history


def _fold_one(book: SpinBook, catalog: Catalog, logical_topic: str, record) -> None:
    """Only what the spin service wrote is folded; anything else is quarantined (an alert, never fatal)."""
    message, problem = records.trusted_event(logical_topic, record)
    if message is None:
        log.error("alert: %s/%s/%s quarantined, not folded: %s", record.topic, record.partition, record.offset, problem)
        return
    proof = records.forwarded_proof(record) if logical_topic == SPIN_JACKPOT_ANSWERS else None
    fold.evolve(book, message, record.value, proof)
