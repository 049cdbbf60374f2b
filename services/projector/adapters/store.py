"""Write one batch into a physical schema with asyncpg — rows, folds and consumer positions in ONE transaction; a
redelivered event id takes the slow path from a savepoint (docs/projection.md)."""

from __future__ import annotations

import asyncpg

from shared.crash import crash_point
from services.projector.adapters.schema import active_schema, quoted
from services.projector.core.batch import Batch, fold_inputs
from services.projector.core.tables import COLUMNS

Positions = dict[tuple[str, int], int]
_EVENT_COLUMNS = list(COLUMNS["events"])


class SchemaSwitched(Exception):
    """The live schema changed under a writer (a rebuild was switched in): reload positions from the new schema."""


async def load_positions(conn: asyncpg.Connection, schema: str) -> Positions:
    rows = await conn.fetch(f"SELECT topic, partition, next_offset FROM {quoted(schema)}.positions")
    return {(row["topic"], row["partition"]): row["next_offset"] for row in rows}


class BatchWriter:
    """Writes batches into one physical schema over one connection (live=True: checks it is still the live one)."""

    def __init__(self, conn: asyncpg.Connection, schema: str, *, live: bool, crash_prefix: str = "projector") -> None:
        self.conn = conn
        self.schema = schema
        self.live = live
        self.crash_prefix = crash_prefix
        self.slow_batches = 0

    async def write(self, batch: Batch, *, move_positions: bool = True) -> int:
        """Project the batch; returns how many of its events were new. Raises SchemaSwitched (nothing written).

        move_positions=False applies records read out of band (an ops replay) without touching the consumer positions.
        """
        async with self.conn.transaction():
            if self.live:
                current = await active_schema(self.conn, lock="FOR SHARE")
                if current != self.schema:
                    raise SchemaSwitched(current)
            new_events = await self._rows(batch) if batch.events else 0
            crash_point(f"{self.crash_prefix}.after_rows")
            if move_positions:
                await self._positions(batch)
            crash_point(f"{self.crash_prefix}.before_commit")
        crash_point(f"{self.crash_prefix}.after_commit")
        return new_events

    async def _rows(self, batch: Batch) -> int:
        events = batch.rows["events"]
        try:
            async with self.conn.transaction():  # a savepoint
                await self.conn.copy_records_to_table(
                    "events", records=events, columns=_EVENT_COLUMNS, schema_name=self.schema
                )
            new_ids = None
        except asyncpg.UniqueViolationError:
            new_ids = await self._insert_new_events(events)
            self.slow_batches += 1
        for table in batch.tables():
            if table == "events":
                continue
            rows = batch.rows[table] if new_ids is None else [r for r in batch.rows[table] if r[0] in new_ids]
            if rows:
                await self.conn.copy_records_to_table(
                    table, records=rows, columns=list(COLUMNS[table]), schema_name=self.schema
                )
        await self._fold(batch, new_ids)
        return len(events) if new_ids is None else len(new_ids)

    async def _insert_new_events(self, events: list[tuple]) -> set:
        columns = ", ".join(f'"{c}"' for c in _EVENT_COLUMNS)
        # Rare (redeliveries after a crash), so the stage is made afresh, shaped like this schema's events table.
        await self.conn.execute(
            "DROP TABLE IF EXISTS pg_temp._stage_events; "
            f"CREATE TEMP TABLE _stage_events (LIKE {quoted(self.schema)}.events) ON COMMIT DROP"
        )
        await self.conn.copy_records_to_table("_stage_events", records=events, columns=_EVENT_COLUMNS)
        rows = await self.conn.fetch(
            f"INSERT INTO {quoted(self.schema)}.events ({columns}) SELECT {columns} FROM _stage_events "
            "ON CONFLICT (event_id) DO NOTHING RETURNING event_id"
        )
        return {row["event_id"] for row in rows}

    async def _fold(self, batch: Batch, new_ids: set | None) -> None:
        if new_ids is None:  # sealed by the runner while the previous transaction ran, unless a caller did not
            deltas, levels = batch.folds or fold_inputs(batch.rows)
        else:
            deltas, levels = fold_inputs(batch.rows, lambda rows: [r for r in rows if r[0] in new_ids])
        s = quoted(self.schema)
        if deltas:
            await self.conn.execute(_FOLD_BALANCES.format(s=s), *map(list, zip(*deltas)))
        if levels:
            await self.conn.execute(_FOLD_POOLS.format(s=s), *map(list, zip(*levels)))

    async def _positions(self, batch: Batch) -> None:
        if not batch.positions:
            return
        keys = list(batch.positions)
        await self.conn.execute(
            f"INSERT INTO {quoted(self.schema)}.positions (topic, partition, next_offset) "
            "SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[]) "
            "ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset",
            [k[0] for k in keys],
            [k[1] for k in keys],
            [batch.positions[k] for k in keys],
        )


# Only postings of events new to this schema are added, so a redelivered event never counts twice.
_FOLD_BALANCES = """
INSERT INTO {s}.account_balances AS b (account, currency, balance_micro, postings, updated_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[], $4::bigint[], $5::timestamptz[])
ON CONFLICT (account, currency) DO UPDATE SET
    balance_micro = b.balance_micro + EXCLUDED.balance_micro,
    postings = b.postings + EXCLUDED.postings,
    updated_at = GREATEST(b.updated_at, EXCLUDED.updated_at)
"""

# A pool's level is the closing of its latest movement by recorded_at (events of one network share one partition).
_FOLD_POOLS = """
INSERT INTO {s}.pools AS p (pool_id, network_id, currency, level_micro, recorded_at, last_event_id)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::uuid[])
ON CONFLICT (pool_id) DO UPDATE SET
    network_id = EXCLUDED.network_id, currency = coalesce(EXCLUDED.currency, p.currency),
    level_micro = EXCLUDED.level_micro,
    recorded_at = EXCLUDED.recorded_at, last_event_id = EXCLUDED.last_event_id
WHERE EXCLUDED.recorded_at >= p.recorded_at
"""
