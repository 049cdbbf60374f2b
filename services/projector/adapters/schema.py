"""Postgres schemas of the projection: the control schema, versioned migrations per physical schema `proj_<time>`, and
the `projection` views that point at the live one (switched in one transaction after a rebuild)."""

from __future__ import annotations

import asyncio
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
        """)


async def create_fresh(conn: asyncpg.Connection, schema: str) -> None:
    """Create a new physical schema with every migration: what `migrate` does for an absent schema, in one round trip
    (a multi-statement query is one implicit transaction) — a rebuild runs this beside its first decode."""
    s = quoted(schema)
    script = [
        f"SELECT pg_advisory_xact_lock({_DDL_LOCK})",
        f"CREATE SCHEMA {s}",
        f"CREATE TABLE {s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
        "applied_at timestamptz NOT NULL DEFAULT now())",
        f"SET LOCAL search_path TO {s}",
    ]
    for migration in migrations():
        invariant(bool(re.fullmatch(r"[a-z0-9_]+", migration.name)), f"migration name {migration.name!r}")
        script += [
            migration.sql,
            f"INSERT INTO {s}.schema_migrations (version, name) VALUES ({migration.version}, '{migration.name}')",
        ]
    await conn.execute("\n;\n".join(script))


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
                migration.version,
                migration.name,
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


# A rebuild fills a fresh schema nobody reads yet: its high-volume COPY-only tables (a row or more per spin) take rows
# faster without their indexes, which are built once after the fill (and before the switch). `events` keeps its
# primary key (the de-duplication by event id); the upserted tables (positions, account_balances, pools) and the
# low-volume tables keep everything (a build costs a fixed overhead and an fsync even for a handful of rows).
BULK_TABLES = (
    "events",
    "spins",
    "spin_journal",
    "wallet_transactions",
    "ledger_postings",
    "pool_movements",
    "contributions",
)


async def defer_indexes(conn: asyncpg.Connection, schema: str) -> list[str]:
    """Drop the secondary indexes and primary keys of the BULK_TABLES (but the key of `events`) of a freshly
    migrated, empty
    schema; returns the statements that re-create them exactly (same names and definitions), keys first.
    Two round trips: a rebuild runs this while its first batch decodes on the same event loop."""
    found = await conn.fetch(_DEFERRABLE, schema, [t for t in BULK_TABLES if t != "events"], list(BULK_TABLES))
    s = quoted(schema)
    drops = [
        f'ALTER TABLE {s}."{r["tablename"]}" DROP CONSTRAINT "{r["name"]}"'
        if r["key"]
        else f'DROP INDEX {s}."{r["name"]}"'
        for r in found
    ]
    empty_check = (
        f"DO $$ BEGIN IF EXISTS (SELECT 1 FROM {s}.events) THEN "
        f"RAISE EXCEPTION 'indexes are deferred only in an empty schema'; END IF; END $$"
    )
    if drops:
        await conn.execute("\n;\n".join([empty_check, *drops]))  # one implicit transaction
    return [
        f'ALTER TABLE {s}."{r["tablename"]}" ADD CONSTRAINT "{r["name"]}" {r["definition"]}'
        if r["key"]
        else r["definition"]
        for r in found
    ]


# Primary keys of the tables $2, then every index of the tables $3 that backs no constraint, as (key, tablename,
# name, definition).
_DEFERRABLE = """
SELECT true AS key, r.relname::text AS tablename, c.conname::text AS name, pg_get_constraintdef(c.oid) AS definition
FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
WHERE n.nspname = $1 AND c.contype = 'p' AND r.relname = ANY($2::text[])
UNION ALL
SELECT false, i.tablename::text, i.indexname::text, i.indexdef FROM pg_indexes i
WHERE i.schemaname = $1 AND i.tablename = ANY($3::text[]) AND NOT EXISTS (
    SELECT 1 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
    WHERE n.nspname = $1 AND c.conname = i.indexname)
ORDER BY 1 DESC, 2, 3
"""


async def restore_indexes(conns: list[asyncpg.Connection], statements: list[str]) -> None:
    """Run the statements of `defer_indexes`, spread over the connections (each builds its share one after another).
    A primary key that finds duplicate rows fails here: the rebuild stops before it switches."""

    async def build(conn: asyncpg.Connection, share: list[str]) -> None:
        for statement in share:
            await conn.execute(statement)

    await asyncio.gather(*(build(conn, statements[index :: len(conns)]) for index, conn in enumerate(conns)))


async def index_definitions(conn: asyncpg.Connection, schema: str) -> set[tuple[str, str, str]]:
    """(table, index, definition without the schema name) of every index of a physical schema (for comparisons)."""
    rows = await conn.fetch("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1", schema)
    return {
        (r["tablename"], r["indexname"], r["indexdef"].replace(f"{schema}.", "").replace(quoted(schema) + ".", ""))
        for r in rows
    }
