"""Rebuild: fold every event from the earliest offsets into a fresh physical schema while the live projector keeps
serving, then switch readers and the live projector to it in one transaction."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from datetime import datetime


from shared import assigned
from services.projector.adapters.runner import Hook, Progress, Projector, ProjectorConfig, connect, reached
from services.projector.adapters.schema import (
    active_schema,
    create_fresh,
    defer_indexes,
    ensure_control,
    quoted,
    restore_indexes,
    schema_name_at,
    set_active,
)
from services.projector.adapters.store import Positions, load_positions


# Connections building the deferred indexes after the fill. Each build ends with an fsync of its index file (the
# index is WAL-logged), so builds on more connections than cores still overlap (docs/projection.md, "Throughput").
INDEX_BUILDERS = 4


@dataclass(frozen=True)
class RebuildResult:
    schema: str
    previous: str | None
    events: int
    rows: int
    dead_letters: int
    dropped_previous: bool


async def end_offsets(bootstrap: str, topics: tuple[str, ...]) -> Positions:
    """The current end (high watermark) of every partition: what a rebuild must reach before it switches."""
    kafka = assigned.consumer(bootstrap, role="projector")
    await kafka.start()
    try:
        partitions = await assigned.partitions_of(bootstrap, topics, role="projector")
        kafka.assign(partitions)  # fetches their leaders now: unassigned, each look-up retried on stale metadata
        ends = await kafka.end_offsets(partitions)
        return {(tp.topic, tp.partition): offset for tp, offset in ends.items()}
    finally:
        await kafka.stop()


async def beginning_offsets(bootstrap: str, topics: tuple[str, ...]) -> Positions:
    kafka = assigned.consumer(bootstrap, role="projector")
    await kafka.start()
    try:
        partitions = await assigned.partitions_of(bootstrap, topics, role="projector")
        kafka.assign(partitions)
        starts = await kafka.beginning_offsets(partitions)
        return {(tp.topic, tp.partition): offset for tp, offset in starts.items()}
    finally:
        await kafka.stop()


def _target(config: ProjectorConfig, schema: str) -> ProjectorConfig:
    return dataclasses.replace(config, target_schema=schema, crash_prefix="rebuild", asynchronous_commit=True)


async def _create(conn, schema: str) -> list[str]:
    """The new schema with every migration, its deferrable indexes dropped; returns the statements to re-create them."""
    await create_fresh(conn, schema)
    return await defer_indexes(conn, schema)


async def rebuild(
    config: ProjectorConfig,
    now: datetime,
    *,
    keep_previous: bool = False,
    on_batch: Hook | None = None,
    on_phase=lambda phase, detail: None,
) -> RebuildResult:
    """Fill proj_<now> up to the end offsets seen at start, build its indexes, catch up to the live positions under
    the switch lock, then point projector_control.active and the projection views at it (one transaction)."""
    builders = await asyncio.gather(*(connect(config.database_url) for _ in range(INDEX_BUILDERS)))
    conn = builders[0]
    creating: asyncio.Task | None = None
    try:
        await ensure_control(conn)
        schema = schema_name_at(now)
        on_phase("fill", schema)
        # The fill's consumer starts, reads the end offsets and decodes its first batch while the schema is created.
        creating = asyncio.create_task(_create(conn, schema))
        fill = Projector(_target(config, schema), schema_ready=creating)
        filled = await fill.run(asyncio.Event(), until_end=True, on_batch=on_batch)
        deferred = await creating
        on_phase("indexes", f"{len(deferred)} indexes and keys of {schema}")
        await restore_indexes(builders, deferred)
        config = dataclasses.replace(config, partitions=tuple(sorted(fill.until)))  # no second metadata look-up
        async with conn.transaction():
            # Live writers take this row FOR SHARE in every batch: from here they wait, so the live positions hold
            # still.
            previous = await active_schema(conn, lock="FOR UPDATE")
            live = await load_positions(conn, previous) if previous else {}
            caught_up = Progress()
            if not reached(await load_positions(conn, schema), live):
                on_phase("catch-up", f"to the live positions of {previous}")
                caught_up = await Projector(_target(config, schema)).run(asyncio.Event(), until=live)
            on_phase("switch", f"{previous} -> {schema}")
            await set_active(conn, schema)
        dropped = False
        if previous and not keep_previous:
            on_phase("drop", previous)
            await conn.execute(f"DROP SCHEMA {quoted(previous)} CASCADE")
            dropped = True
        return RebuildResult(
            schema,
            previous,
            filled.events + caught_up.events,
            filled.rows + caught_up.rows,
            filled.dead_letters + caught_up.dead_letters,
            dropped,
        )
    finally:
        if creating is not None and not creating.done():  # the fill failed first: the DDL must not outlive `conn`
            creating.cancel()
            await asyncio.gather(creating, return_exceptions=True)
        await asyncio.gather(*(builder.close() for builder in builders))


def total_to_read(starts: Positions, ends: Positions) -> int:
    return sum(max(0, end - starts.get(key, 0)) for key, end in ends.items())
