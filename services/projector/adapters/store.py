"""Write one batch into a physical schema with asyncpg: COPY into temp stage tables, insert only events whose id is
new, fold balances and pool levels, and move the consumer positions — all in ONE transaction."""
from __future__ import annotations

import asyncpg

from shared.crash import crash_point
from services.projector.adapters.schema import active_schema, quoted
from services.projector.core.batch import Batch
from services.projector.core.tables import COLUMNS

Positions = dict[tuple[str, int], int]


class SchemaSwitched(Exception):
    """The live schema changed under a writer (a rebuild was switched in): reload positions from the new schema."""


def _cols(table: str, prefix: str = "") -> str:
    return ", ".join(f'{prefix}"{column}"' for column in COLUMNS[table])


async def load_positions(conn: asyncpg.Connection, schema: str) -> Positions:
    rows = await conn.fetch(f"SELECT topic, partition, next_offset FROM {quoted(schema)}.positions")
    return {(row["topic"], row["partition"]): row["next_offset"] for row in rows}


class BatchWriter:
    """Owns the temp stage tables of one connection; they are rebuilt when the target schema changes."""

    def __init__(self, conn: asyncpg.Connection, schema: str, *, live: bool, crash_prefix: str = "projector") -> None:
        self.conn = conn
        self.schema = schema
        self.live = live
        self.crash_prefix = crash_prefix
        self._staged_for: str | None = None

    async def _stage_tables(self) -> None:
        if self._staged_for == self.schema:
            return
        statements = ["DROP TABLE IF EXISTS pg_temp._new_ids",
                      "CREATE TEMP TABLE _new_ids (event_id uuid PRIMARY KEY) ON COMMIT DELETE ROWS"]
        for table in COLUMNS:
            statements.append(f"DROP TABLE IF EXISTS pg_temp._st_{table}")
            statements.append(
                f"CREATE TEMP TABLE _st_{table} (LIKE {quoted(self.schema)}.{table}) ON COMMIT DELETE ROWS"
            )
        await self.conn.execute(";\n".join(statements))
        self._staged_for = self.schema

    async def write(self, batch: Batch, *, move_positions: bool = True) -> int:
        """Project the batch; returns how many of its events were new. Raises SchemaSwitched (nothing written).

        move_positions=False applies records read out of band (an ops replay) without touching the consumer positions.
        """
        await self._stage_tables()
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
        s = quoted(self.schema)
        for table in batch.tables():
            await self.conn.copy_records_to_table(f"_st_{table}", records=batch.rows[table], columns=list(COLUMNS[table]))
        status = await self.conn.execute(
            f"WITH ins AS (INSERT INTO {s}.events ({_cols('events')}) SELECT {_cols('events')} FROM _st_events "
            f"ON CONFLICT (event_id) DO NOTHING RETURNING event_id) INSERT INTO _new_ids SELECT event_id FROM ins"
        )
        new_events = int(status.rsplit(" ", 1)[1])
        if new_events == 0:
            return 0
        for table in batch.tables():
            if table == "events":
                continue
            await self.conn.execute(
                f"INSERT INTO {s}.{table} ({_cols(table)}) SELECT {_cols(table, 'st.')} FROM _st_{table} st "
                f"JOIN _new_ids USING (event_id) ON CONFLICT DO NOTHING"
            )
        if batch.rows.get("ledger_postings"):
            await self.conn.execute(_FOLD_BALANCES.format(s=s))
        if batch.rows.get("pool_movements"):
            await self.conn.execute(_FOLD_POOLS.format(s=s))
        return new_events

    async def _positions(self, batch: Batch) -> None:
        if not batch.positions:
            return
        keys = list(batch.positions)
        await self.conn.execute(
            f"INSERT INTO {quoted(self.schema)}.positions (topic, partition, next_offset) "
            "SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[]) "
            "ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset",
            [k[0] for k in keys], [k[1] for k in keys], [batch.positions[k] for k in keys],
        )


# Only postings of events new to this schema are added, so a redelivered event never counts twice.
_FOLD_BALANCES = """
INSERT INTO {s}.account_balances AS b (account, currency, balance_micro, postings, updated_at)
SELECT p.account, p.currency, sum(p.amount_micro), count(*), max(p.recorded_at)
FROM _st_ledger_postings p JOIN _new_ids USING (event_id)
GROUP BY p.account, p.currency
ON CONFLICT (account, currency) DO UPDATE SET
    balance_micro = b.balance_micro + EXCLUDED.balance_micro,
    postings = b.postings + EXCLUDED.postings,
    updated_at = GREATEST(b.updated_at, EXCLUDED.updated_at)
"""

# A pool's level is the closing of its latest movement (by recorded_at, then log position); events of one network
# share one partition, so this is the log order.
_FOLD_POOLS = """
INSERT INTO {s}.pools AS p (pool_id, network_id, currency, level_micro, recorded_at, last_event_id)
SELECT DISTINCT ON (m.pool_id) m.pool_id, m.network_id, m.currency, m.closing_micro, m.recorded_at, m.event_id
FROM _st_pool_movements m JOIN _new_ids USING (event_id) JOIN _st_events e USING (event_id)
ORDER BY m.pool_id, m.recorded_at DESC, e.partition DESC, e."offset" DESC, m.seq DESC
ON CONFLICT (pool_id) DO UPDATE SET
    network_id = EXCLUDED.network_id, currency = EXCLUDED.currency, level_micro = EXCLUDED.level_micro,
    recorded_at = EXCLUDED.recorded_at, last_event_id = EXCLUDED.last_event_id
WHERE EXCLUDED.recorded_at >= p.recorded_at
"""
