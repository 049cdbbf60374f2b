"""Read one partition of a topic from an offset up to its end as of now (read_committed): how a service folds its
own output partition back into state on assignment (jackpot.events, wallet.events); or a range of several partitions
at once (a warm spare's steps, the spin's rebuild)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from aiokafka import TopicPartition

from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer


# How long one getmany of a read to a known end waits. A fetch that brings only aborted records and markers (the tail a
# killed owner's open transaction leaves once its successor aborts it) moves the position but hands over no record, and
# getmany waits its whole timeout for one: a long wait would be paid by every takeover. The readers' fetches are
# short (AIOKAFKA_READER_SAFETY), so a short wait costs no busy loop.
CATCH_UP_POLL_MS = 10


class PartitionReadTimeout(TimeoutError):
    """The partition was not read up to its end offset in time."""


async def fold_partition(
    bootstrap: str,
    topic: str,
    partition: int,
    on_record: Callable[[Any], None],
    start: int | Callable[[int, int], int] | None = None,
    timeout_s: float = 300,
    batch: int = 5000,
    role: str | None = None,
) -> int:
    """Call `on_record` for each committed record from `start` (None or below the log start: the beginning; a
    function: of the log start and the end offset) up to the end offset seen when called; returns that end offset
    (the next offset to read later). `on_record` runs on a worker thread, one fetched batch at a time, in order."""
    reader = aio_consumer(
        bootstrap=bootstrap, role=role, group_id=None, **{**AIOKAFKA_READER_SAFETY, "enable_auto_commit": False}
    )
    await reader.start()
    try:
        tp = TopicPartition(topic, partition)
        reader.assign([tp])
        beginning = (await reader.beginning_offsets([tp]))[tp]
        end = (await reader.end_offsets([tp]))[tp]
        first = start(beginning, end) if callable(start) else start
        reader.seek(tp, max(beginning, first or 0))
        deadline = time.monotonic() + timeout_s
        while await reader.position(tp) < end:
            if time.monotonic() > deadline:
                raise PartitionReadTimeout(f"{topic}[{partition}] not restored to offset {end} in {timeout_s} s")
            for records in (await reader.getmany(tp, timeout_ms=CATCH_UP_POLL_MS, max_records=batch)).values():
                # On a worker thread: a batch's fold (decode, verify, evolve) is CPU work that would otherwise hold the
                # event loop, and with it the group's heartbeats, for as long as it takes.
                await asyncio.to_thread(_each, on_record, [record for record in records if record.offset < end])
        return end
    finally:
        await reader.stop()


def _each(on_record: Callable[[Any], None], records: list[Any]) -> None:
    for record in records:
        on_record(record)


async def read_range(
    reader: Any, starts: dict[TopicPartition, int], ends: dict[TopicPartition, int]
) -> dict[TopicPartition, list]:
    """Every record of the partitions in `ends` (the reader is assigned them) from `starts` (absent or below the log
    start: the beginning) up to those ends, all fetched together."""
    tps = list(ends)
    beginnings = await reader.beginning_offsets(tps)
    history: dict[TopicPartition, list] = {tp: [] for tp in tps}
    first = {tp: max(beginnings[tp], starts.get(tp, 0)) for tp in tps}
    remaining = {tp for tp in tps if ends[tp] > first[tp]}
    for tp in remaining:
        reader.seek(tp, first[tp])
    while remaining:
        batch = await reader.getmany(*remaining, timeout_ms=CATCH_UP_POLL_MS, max_records=5000)
        for tp, polled in batch.items():
            history[tp].extend(record for record in polled if record.offset < ends[tp])
        for tp in list(remaining):
            if await reader.position(tp) >= ends[tp]:
                remaining.discard(tp)
    return history
