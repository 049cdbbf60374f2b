"""Times staged as microseconds (core/times.py) land in Postgres as the instants the events carry: read back over a
plain connection (asyncpg's own timestamptz codec), every time column equals the envelope's time, its data's time and
the record's broker time."""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import asyncpg
import pytest

from services.projector.adapters.runner import connect
from services.projector.adapters.schema import migrate
from services.projector.adapters.store import BatchWriter
from services.projector.core.batch import Batch
from services.projector.core.mapping import RecordMeta
from services.projector.core.samples import sample_events
from services.projector.core.times import pg_micros

pytestmark = pytest.mark.integration
BROKER_TIME = datetime(2026, 11, 30, 12, 0, 0, 123_000, tzinfo=timezone.utc)


async def _write_and_read(url: str, samples) -> list[asyncpg.Record]:
    writer_conn = await connect(url)
    try:
        await migrate(writer_conn, "proj_times")
        batch = Batch()
        for offset, sample in enumerate(samples):
            batch.add_event(sample.envelope, RecordMeta(sample.topic, 0, offset, pg_micros(BROKER_TIME)))
        await BatchWriter(writer_conn, "proj_times", live=False).write(batch)
        # and what the writer's own connection reads back is an aware datetime as usual
        assert await writer_conn.fetchval('SELECT min(broker_time) FROM "proj_times".events') == BROKER_TIME
    finally:
        await writer_conn.close()
    plain = await asyncpg.connect(url)
    try:
        return await plain.fetch(
            'SELECT e.event_id, e.event_time, e.broker_time, t.recorded_at, a.updated_at '
            'FROM "proj_times".events e JOIN "proj_times".wallet_transactions t USING (event_id) '
            'JOIN "proj_times".account_balances a ON a.account = \'house\'')
    finally:
        await plain.close()


def test_time_columns_hold_the_instants_of_the_events(fresh_database):
    samples = sample_events(30, datetime(2026, 11, 30, 11, 0, tzinfo=timezone.utc))
    rows = asyncio.run(_write_and_read(fresh_database, samples))
    by_id = {sample.envelope.id: sample.envelope for sample in samples}
    assert rows
    latest = max(env.data.recorded_at for env in by_id.values() if env.type.startswith("reelstream.wallet."))
    for row in rows:
        env = by_id[row["event_id"]]
        assert row["event_time"] == env.time
        assert row["broker_time"] == BROKER_TIME
        assert row["recorded_at"] == env.data.recorded_at
        assert row["updated_at"] == latest  # the folded balance's time went through the same codec, as an array
