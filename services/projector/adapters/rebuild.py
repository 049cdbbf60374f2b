"""Rebuild: fold every event from the earliest offsets into a fresh physical schema while the live projector keeps
serving, then switch readers and the live projector to it in one transaction."""
from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from datetime import datetime


from services.projector.adapters import kafka_io
from services.projector.adapters.runner import Hook, Progress, Projector, ProjectorConfig, connect, reached
from services.projector.adapters.schema import active_schema, ensure_control, migrate, quoted, schema_name_at, set_active
from services.projector.adapters.store import Positions, load_positions


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
    kafka = kafka_io.consumer(bootstrap)
    await kafka.start()
    try:
        partitions = await kafka_io.partitions_of(bootstrap, topics)
        kafka.assign(partitions)  # fetches their leaders now: unassigned, each look-up retried on stale metadata (~0.5 s)
        ends = await kafka.end_offsets(partitions)
        return {(tp.topic, tp.partition): offset for tp, offset in ends.items()}
    finally:
        await kafka.stop()


async def beginning_offsets(bootstrap: str, topics: tuple[str, ...]) -> Positions:
    kafka = kafka_io.consumer(bootstrap)
    await kafka.start()
    try:
        partitions = await kafka_io.partitions_of(bootstrap, topics)
        kafka.assign(partitions)
        starts = await kafka.beginning_offsets(partitions)
        return {(tp.topic, tp.partition): offset for tp, offset in starts.items()}
    finally:
        await kafka.stop()


async def _fill(config: ProjectorConfig, schema: str, until: Positions, on_batch: Hook | None) -> Progress:
    target = dataclasses.replace(config, target_schema=schema, crash_prefix="rebuild")  # config.partitions: see rebuild
    return await Projector(target).run(asyncio.Event(), until=until, on_batch=on_batch)


async def rebuild(config: ProjectorConfig, now: datetime, *, keep_previous: bool = False,
                  on_batch: Hook | None = None, on_phase=lambda phase, detail: None) -> RebuildResult:
    """Fill proj_<now> up to the end offsets seen at start, catch up to the live positions under the switch lock,
    then point projector_control.active and the projection views at it (one transaction)."""
    conn = await connect(config.database_url)
    try:
        await ensure_control(conn)
        schema = schema_name_at(now)
        # The new schema's DDL (Postgres) and the end offsets (Kafka) do not depend on each other: both at once.
        ends, _ = await asyncio.gather(end_offsets(config.bootstrap, config.topics), migrate(conn, schema))
        on_phase("fill", schema)
        config = dataclasses.replace(config, partitions=tuple(sorted(ends)))  # one metadata look-up per rebuild
        filled = await _fill(config, schema, ends, on_batch)
        async with conn.transaction():
            # Live writers take this row FOR SHARE in every batch: from here they wait, so the live positions hold still.
            previous = await active_schema(conn, lock="FOR UPDATE")
            live = await load_positions(conn, previous) if previous else {}
            caught_up = Progress()
            if not reached(await load_positions(conn, schema), live):
                on_phase("catch-up", f"to the live positions of {previous}")
                caught_up = await _fill(config, schema, live, None)
            on_phase("switch", f"{previous} -> {schema}")
            await set_active(conn, schema)
        dropped = False
        if previous and not keep_previous:
            await conn.execute(f"DROP SCHEMA {quoted(previous)} CASCADE")
            dropped = True
        return RebuildResult(schema, previous, filled.events + caught_up.events, filled.rows + caught_up.rows,
                             filled.dead_letters + caught_up.dead_letters, dropped)
    finally:
        await conn.close()


def total_to_read(starts: Positions, ends: Positions) -> int:
    return sum(max(0, end - starts.get(key, 0)) for key, end in ends.items())


