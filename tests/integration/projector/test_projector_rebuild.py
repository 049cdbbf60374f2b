"""`projector rebuild` folds the log into a fresh schema while the live projector keeps serving, switches readers and
the live projector atomically, and its tables are identical to the live ones.

Scenario: traffic is projected live; a rebuild runs while more events arrive; after the switch the live projector
keeps projecting into the rebuilt schema. A second rebuild (keeping the previous schema) must then equal, table by
table and row by row, the schema the live projector has been maintaining.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timezone

import pytest

from reelstream.processes import spawn
from services.projector.adapters.rebuild import rebuild
from services.projector.adapters.schema import active_schema
from services.projector.app import live_config
from tests.support.projector import at_log_end, fetchval, samples, table_digests

pytestmark = pytest.mark.integration


def _rebuild(deployment, keep_previous: bool):
    config = live_config(deployment.env)
    return asyncio.run(rebuild(config, datetime.now(timezone.utc), keep_previous=keep_previous))


def test_a_rebuild_switches_atomically_under_live_traffic_and_equals_the_live_tables(deployment, eventually):
    published = samples(400)
    third = len(published) // 3
    deployment.publish(published[:third])
    projector = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: at_log_end(deployment), 60, 0.2)
        live_before = asyncio.run(fetchval(deployment.database_url, "SELECT schema_name FROM projector_control.active"))
        during = threading.Thread(target=deployment.publish, args=(published[third : 2 * third],))
        during.start()
        first = _rebuild(deployment, keep_previous=False)
        during.join()
        assert first.previous == live_before and first.dropped_previous
        deployment.publish(published[2 * third :])
        eventually(lambda: at_log_end(deployment), 60, 0.2)  # the live projector now writes into the rebuilt schema
        assert projector.process.poll() is None
        second = _rebuild(deployment, keep_previous=True)
    finally:
        projector.stop()
    assert second.previous == first.schema
    assert asyncio.run(_active(deployment.database_url)) == second.schema
    live, rebuilt = (asyncio.run(table_digests(deployment.database_url, s)) for s in (second.previous, second.schema))
    assert live == rebuilt
    assert live["events"][0] == len({s.envelope.id for s in published})


async def _active(url: str) -> str | None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return await active_schema(conn)
    finally:
        await conn.close()
