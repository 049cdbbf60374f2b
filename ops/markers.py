"""The re-drive markers in Postgres: one row per dead letter put back on its topic, so each is re-driven once."""

from __future__ import annotations

import asyncpg

TABLE = "projector_control.dlq_redrives"  # where the markers have always lived; existing rows stay valid
# The projector's DDL lock key (services/projector/adapters/schema.py): schema creation never races its start.
DDL_LOCK = 0x7265656C
CONNECT_TIMEOUT_S = 5
COMMAND_TIMEOUT_S = 60


async def connect(url: str) -> asyncpg.Connection:
    """A connection with the markers' table in place."""
    conn = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S, command_timeout=COMMAND_TIMEOUT_S)
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", DDL_LOCK)
        await conn.execute(f"""
            CREATE SCHEMA IF NOT EXISTS projector_control;
            CREATE TABLE IF NOT EXISTS {TABLE} (
                dlq_topic text NOT NULL, dlq_partition integer NOT NULL, dlq_offset bigint NOT NULL,
                target text NOT NULL, redriven_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (dlq_topic, dlq_partition, dlq_offset));
        """)
    return conn


async def redriven(conn: asyncpg.Connection, dlq_topic: str) -> set[tuple[int, int]]:
    """(partition, offset) of every dead letter of the topic already re-driven."""
    rows = await conn.fetch(f"SELECT dlq_partition, dlq_offset FROM {TABLE} WHERE dlq_topic = $1", dlq_topic)
    return {(row["dlq_partition"], row["dlq_offset"]) for row in rows}


async def mark(conn: asyncpg.Connection, dlq_topic: str, partition: int, offset: int, target: str) -> None:
    await conn.execute(
        f"INSERT INTO {TABLE} (dlq_topic, dlq_partition, dlq_offset, target) "
        "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        dlq_topic,
        partition,
        offset,
        target,
    )
