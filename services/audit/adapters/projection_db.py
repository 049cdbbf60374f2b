"""Read the Postgres projection (through the `projection` views) into a Snapshot the pure comparison can check."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import orjson

from services.audit.core.projection import KEYS, Snapshot, normal

CONNECT_TIMEOUT_S = 15
VIEW_SCHEMA = "projection"


async def read_snapshot(database_url: str, prefix: str = "", schema: str = VIEW_SCHEMA) -> Snapshot:
    """All compared tables, the projector's positions and the source offsets of every projected event.

    Read in one REPEATABLE READ, read-only transaction so the rows and the positions are one consistent picture.
    """
    connection = await asyncpg.connect(database_url, timeout=CONNECT_TIMEOUT_S)
    try:
        await connection.set_type_codec(
            "jsonb", encoder=lambda v: orjson.dumps(v).decode(), decoder=orjson.loads, schema="pg_catalog"
        )
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            tables = {table: await _rows(connection, schema, table) for table in KEYS}
            positions = {
                (row["topic"][len(prefix) :], row["partition"]): row["next_offset"]
                for row in await connection.fetch(f'SELECT topic, partition, next_offset FROM "{schema}".positions')
                if row["topic"].startswith(prefix)
            }
            sources = {
                str(row["event_id"]): (row["topic"][len(prefix) :], row["partition"], row["offset"])
                for row in await connection.fetch(f'SELECT event_id, topic, partition, "offset" FROM "{schema}".events')
            }
        return Snapshot(tables, positions, sources)
    finally:
        await connection.close()


async def _rows(connection: Any, schema: str, table: str) -> list[dict[str, Any]]:
    records = await connection.fetch(f'SELECT * FROM "{schema}"."{table}"')
    return [{key: normal(value) for key, value in record.items()} for record in records]


def read_snapshot_sync(database_url: str, prefix: str = "", schema: str = VIEW_SCHEMA) -> Snapshot:
    return asyncio.run(read_snapshot(database_url, prefix, schema))
