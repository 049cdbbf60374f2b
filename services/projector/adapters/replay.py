"""Replayed events into the live projection: what an operator's replay needs from the projector (events already
there are skipped by id; positions do not move)."""

from __future__ import annotations

import itertools
from typing import Any

import asyncpg

from services.projector.adapters import kafka_io
from services.projector.adapters.runner import connect
from services.projector.adapters.schema import active_schema
from services.projector.adapters.store import BatchWriter
from services.projector.core.batch import Batch
from services.projector.core.mapping import rows_of
from shared.events import Envelope


class ProjectionReplay:
    """The live projection as a replay target: `async with ProjectionReplay(url) as target: await target.apply(...)`."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.conn: asyncpg.Connection | None = None
        self.schema = ""
        self.writer: BatchWriter | None = None

    async def __aenter__(self) -> ProjectionReplay:
        self.conn = await connect(self.database_url)
        schema = await active_schema(self.conn)
        if schema is None:
            await self.conn.close()
            raise RuntimeError("no live projection yet: start the projector first")
        self.schema = schema
        self.writer = BatchWriter(self.conn, schema, live=True, crash_prefix="ops")
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.conn.close()

    async def apply(self, events: list[tuple[Envelope, Any]], *, dry_run: bool) -> int:
        """Write the decoded (envelope, Kafka record) pairs (a batch envelope's items: consecutive pairs of one record);
        returns how many events were new (would be, dry run)."""
        batch = Batch()
        for _, group in itertools.groupby(events, key=lambda pair: id(pair[1])):
            pairs = list(group)
            meta = kafka_io.meta_of(pairs[0][1])
            batch.add_packed(
                [(env.id, rows_of(env, meta)) for env, _ in pairs], meta.topic, meta.partition, meta.offset
            )
        ids = [row[0] for row in batch.rows.get("events", [])]
        if dry_run:
            known = await self.conn.fetchval(
                f'SELECT count(*) FROM "{self.schema}".events WHERE event_id = ANY($1::uuid[])', ids
            )
            return len(ids) - known
        return await self.writer.write(batch, move_positions=False)
