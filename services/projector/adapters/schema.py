"""Postgres schemas of the projection: the control schema, versioned migrations per physical schema, the view schema.

Physical schemas `proj_<timestamp>` hold the rows; `projector_control.active` names the live one and the `projection`
views point at it. Switching (after a rebuild) changes both in one transaction.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import asyncpg

from shared.invariant import invariant

CONTROL = "projector_control"
VIEWS = "projection"
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
_DDL_LOCK = 0x7265656C  # advisory lock key: one DDL writer at a time (projector start, rebuild, switch)
_NAME = re.compile(r"^proj_[0-9a-z_]{1,50}$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The versioned SQL files NNNN_name.sql, in order; versions are unique and contiguous from 1."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        number, _, name = path.stem.partition("_")
        found.append(Migration(int(number), name, path.read_text()))
    invariant([m.version for m in found] == list(range(1, len(found) + 1)), "migration versions must be 1..N")
    return found


def schema_name_at(moment: datetime) -> str:
    """A fresh physical schema name from a UTC moment, e.g. proj_20250101t120000123456z."""
    return "proj_" + moment.strftime("%Y%m%dt%H%M%S%fz").lower()


def quoted(schema: str) -> str:
    invariant(bool(_NAME.match(schema)), f"not a projection schema name: {schema!r}")
    return f'"{schema}"'


async def ensure_control(conn: asyncpg.Connection) -> None:
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
        await conn.execute(f"""
            CREATE SCHEMA IF NOT EXISTS {CONTROL};
            CREATE SCHEMA IF NOT EXISTS {VIEWS};
            CREATE TABLE IF NOT EXISTS {CONTROL}.active (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                schema_name text NOT NULL,
                switched_at timestamptz NOT NULL DEFAULT now());
            CREATE TABLE IF NOT EXISTS {CONTROL}.dlq_redrives (
                dlq_topic text NOT NULL, dlq_partition integer NOT NULL, dlq_offset bigint NOT NULL,
                target text NOT NULL, redriven_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (dlq_topic, dlq_partition, dlq_offset));
        """)


async def migrate(conn: asyncpg.Connection, schema: str) -> list[int]:
    """Create the schema if needed and apply the migrations it lacks, each in its own transaction; returns them."""
    applied: list[int] = []
    for migration in migrations():
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
            await conn.execute(f"""
                CREATE SCHEMA IF NOT EXISTS {quoted(schema)};
                CREATE TABLE IF NOT EXISTS {quoted(schema)}.schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
            """)
            done = await conn.fetchval(
                f"SELECT count(*) FROM {quoted(schema)}.schema_migrations WHERE version = $1", migration.version
            )
            if done:
                continue
            await conn.execute(f"SET LOCAL search_path TO {quoted(schema)}")
            await conn.execute(migration.sql)
            await conn.execute(
                f"INSERT INTO {quoted(schema)}.schema_migrations (version, name) VALUES ($1, $2)",
                migration.version, migration.name,
            )
            applied.append(migration.version)
    return applied


async def active_schema(conn: asyncpg.Connection, *, lock: str = "") -> str | None:
    """The live physical schema; lock="FOR SHARE" in a writer's transaction, "FOR UPDATE" when switching."""
    return await conn.fetchval(f"SELECT schema_name FROM {CONTROL}.active {lock}")


async def point_views(conn: asyncpg.Connection, schema: str) -> None:
    """(Re)create projection.<table> as a view of every table of `schema` (call inside a transaction)."""
    tables = await conn.fetch(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' "
        "ORDER BY table_name",
        schema,
    )
    for row in tables:
        table = row["table_name"]
        await conn.execute(f'CREATE OR REPLACE VIEW {VIEWS}."{table}" AS SELECT * FROM {quoted(schema)}."{table}"')


async def activate(conn: asyncpg.Connection, schema: str) -> str | None:
    """Make `schema` the live one: control row and views in one transaction. Returns the schema it replaced."""
    async with conn.transaction():
        previous = await active_schema(conn, lock="FOR UPDATE")
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
        await set_active(conn, schema)
        return previous


async def set_active(conn: asyncpg.Connection, schema: str) -> None:
    await conn.execute(
        f"INSERT INTO {CONTROL}.active (singleton, schema_name, switched_at) VALUES (true, $1, now()) "
        "ON CONFLICT (singleton) DO UPDATE SET schema_name = EXCLUDED.schema_name, switched_at = EXCLUDED.switched_at",
        schema,
    )
    await point_views(conn, schema)


async def prepare_live(conn: asyncpg.Connection, now: datetime) -> str:
    """At projector start: the control schema, the live schema (created on first start), its migrations, its views."""
    await ensure_control(conn)
    schema = await active_schema(conn)
    if schema is None:
        schema = schema_name_at(now)
        await migrate(conn, schema)
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
            if await active_schema(conn, lock="FOR UPDATE") is None:
                await set_active(conn, schema)
        return await active_schema(conn)
    if await migrate(conn, schema):
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _DDL_LOCK)
            await point_views(conn, schema)
    return schema
