"""A rebuild bulk-loads its fresh schema: the COPY-only tables are filled without their secondary indexes and primary
keys, which are built after the fill and before the switch. Event ids stay de-duplicated by the primary key of
`events` (kept during the fill), and a key that finds duplicate rows stops the rebuild before it switches.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime, timezone

import asyncpg
import pytest

from services.projector.adapters.rebuild import end_offsets, rebuild
from services.projector.adapters.runner import Projector
from services.projector.adapters.schema import create_fresh, defer_indexes, index_definitions, migrate, restore_indexes
from services.projector.app import live_config
from tests.support.projector import table_digests, samples

pytestmark = pytest.mark.integration

_KEYS = """SELECT r.relname, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = $1"""


async def _catalog(url: str, schema: str) -> tuple[set, set]:
    conn = await asyncpg.connect(url, timeout=15)
    try:
        return await index_definitions(conn, schema), {tuple(row) for row in await conn.fetch(_KEYS, schema)}
    finally:
        await conn.close()


async def _live_then_rebuild(config, max_records: int):
    await Projector(config).run(asyncio.Event(), until=await end_offsets(config.bootstrap, config.topics))
    small = dataclasses.replace(config, max_records=max_records)  # duplicates land in later batches than originals
    return await rebuild(small, datetime.now(timezone.utc), keep_previous=True)


def test_a_bulk_rebuild_projects_each_duplicated_event_once_and_switches_to_a_fully_indexed_schema(deployment):
    published = samples(150)
    deployment.publish(published)
    deployment.publish(published[:300])  # byte-identical redeliveries later in the log
    deployment.publish(published[40:60])
    result = asyncio.run(_live_then_rebuild(live_config(deployment.env), max_records=150))
    distinct = len({s.envelope.id for s in published})
    assert result.events > distinct  # duplicates in later batches reached the database's de-duplication ...
    live, rebuilt = (asyncio.run(table_digests(deployment.database_url, s)) for s in (result.previous, result.schema))
    assert rebuilt["events"][0] == distinct  # ... and each event was projected once
    assert rebuilt == live
    assert asyncio.run(_catalog(deployment.database_url, result.schema)) == asyncio.run(
        _catalog(deployment.database_url, result.previous)
    )


async def _deferred_schema_with_a_duplicate(url: str) -> None:
    conn = await asyncpg.connect(url, timeout=15)
    try:
        await create_fresh(conn, "proj_fresh")
        await migrate(conn, "proj_migrated")
        assert await index_definitions(conn, "proj_fresh") == await index_definitions(conn, "proj_migrated")
        deferred = await defer_indexes(conn, "proj_fresh")
        assert any("spins_pkey" in s for s in deferred) and any("spins_request" in s for s in deferred)
        assert not any(key in s for s in deferred for key in ("events_pkey", "positions_pkey", "meters"))
        for _ in range(2):  # what a broken de-duplication would leave behind
            await conn.execute(
                "INSERT INTO proj_fresh.ledger_postings VALUES ('00000000-0000-0000-0000-000000000001', "
                "0, 'player:p', 'EUR', 1, 'p', '2026-11-30', '2026-11-30')"
            )
        with pytest.raises(asyncpg.UniqueViolationError):
            await restore_indexes([conn], deferred)
        await conn.execute(
            "INSERT INTO proj_fresh.events SELECT event_id, 't', 's', 'x', now(), 't', 0, 0, now() "
            "FROM proj_fresh.ledger_postings LIMIT 1"
        )
        with pytest.raises(asyncpg.RaiseError):  # indexes are deferred in empty schemas only
            await defer_indexes(conn, "proj_fresh")
    finally:
        await conn.close()


def test_restoring_the_keys_over_duplicate_rows_fails_so_such_a_rebuild_never_switches(fresh_database):
    asyncio.run(_deferred_schema_with_a_duplicate(fresh_database))
