"""What the monitor may commit: input offsets only up to what its agents applied, and only once every table write before
them is acknowledged (docs/monitor.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any


class ChangelogWrites:
    def __init__(self) -> None:
        self.pending: set[asyncio.Future] = set()

    def track(self, table: Any) -> None:
        """Remember each changelog write of `table` (a faust table) until the broker acknowledges it."""
        send = table.send_changelog

        def sending(*args: Any, **kwargs: Any) -> asyncio.Future:
            future = send(*args, **kwargs)
            self.pending.add(future)
            future.add_done_callback(self._settle)
            return future

        table.send_changelog = sending

    def _settle(self, future: asyncio.Future) -> None:
        if not future.cancelled() and future.exception() is None:
            self.pending.discard(future)

    async def settled(self) -> None:
        """Return once every write made so far is acknowledged; raise the error of one that failed."""
        while self.pending:
            waiting = list(self.pending)
            await asyncio.wait(waiting)
            failed = [f for f in waiting if f.cancelled() or f.exception() is not None]
            if failed:
                raise RuntimeError(f"{len(failed)} changelog writes failed; not committing past them") from (
                    None if failed[0].cancelled() else failed[0].exception()
                )


def clamp_commits(consumer: Any, applied: Mapping[tuple[str, int], int]) -> None:
    """Make `consumer._commit` (faust's, under every commit path) commit no partition past `applied[(topic,
    partition)]` (the next offset the agents have not applied), and none the agents have applied nothing of."""
    commit = consumer._commit

    async def clamped(offsets: Mapping[Any, int]) -> bool:
        allowed = {
            tp: min(offset, applied[(tp.topic, tp.partition)])
            for tp, offset in offsets.items()
            if (tp.topic, tp.partition) in applied
        }
        return await commit(allowed) if allowed else False

    consumer._commit = clamped


def drain_before_commit(buffer: Any, tables: Iterable[Any]) -> ChangelogWrites:
    """Track `tables` and make `buffer.flush()` (faust's producer buffer) wait for all their writes."""
    writes = ChangelogWrites()
    for table in tables:
        writes.track(table)
    buffer.flush = writes.settled
    return writes


def hold_inputs_until_seeked(app: Any) -> None:
    """faust 0.15.3's recovery resumes the input partitions, then seeks them to their committed offsets, then
    resumes flow control, which clears the stream queues — with flow control still open from reading the
    changelogs. Records fetched from the old position during the seek reached the agents, and the ones still queued
    when it cleared were dropped after the consumer had marked them read (two records of a partition, in a quarter
    of the restarts measured). Suspending flow control first makes those records wait at the conductor until the
    seek is done; they are delivered after the clear, in order."""
    recovery = app.tables.recovery
    completed = recovery.on_recovery_completed

    async def on_recovery_completed(*args: Any, **kwargs: Any) -> None:
        app.flow_control.suspend()
        await completed(*args, **kwargs)

    recovery.on_recovery_completed = on_recovery_completed
