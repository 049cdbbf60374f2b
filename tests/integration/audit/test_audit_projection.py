"""The audit against the real projector's Postgres tables: equal row by row after a clean run, and one row edited
in Postgres afterwards is named with its table, key and column.

Scenario: a synthetic history is produced to fresh prefixed topics; the projector service (spawned as a process)
projects it into a fresh database; once its positions reach the topics' end offsets it is stopped and the audit runs
with the projection comparison on. Then `UPDATE projection.spins` changes one win, and the audit must fail naming it.
"""

from __future__ import annotations

from deploy.local.postgres import drop_database
import asyncio
import os
import uuid
from pathlib import Path

import asyncpg
import pytest

from services.audit.adapters.projection_db import read_snapshot_sync
from services.audit.adapters.runner import audit_platform
from services.audit.adapters.topics import read_topics
from services.audit.core.scope import Scope
from bench.synthetic.spins import play_history, stand_in_lookup
from shared.config import load_settings
from shared import records
from shared.events import encode
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS

pytestmark = pytest.mark.integration
pytest.importorskip("services.projector.app", reason="the projector service is not in this tree yet")


def _with_database(url: str, name: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


async def _admin(url: str, sql: str) -> None:
    connection = await asyncpg.connect(url, timeout=15)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture
def fresh_database(database_url):
    name = f"t_{uuid.uuid4().hex}"
    asyncio.run(_admin(database_url, f'CREATE DATABASE "{name}"'))
    yield _with_database(database_url, name)
    asyncio.run(drop_database(database_url, name))


@pytest.fixture
def prefixed(kafka_bootstrap):
    prefix = f"auditpg-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    yield prefix
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def test_the_projection_equals_the_fold_and_an_edited_row_is_named(
    kafka_bootstrap, prefixed, fresh_database, make_producer, tmp_path: Path, eventually
):
    from reelstream.processes import spawn

    history = play_history(seed=31, players=2, spins_per_player=10)
    producer = make_producer()
    for item in history.emitted:
        producer.send(
            prefixed + item.topic,
            key=item.envelope.key,
            value=encode(item.envelope),
            headers=records.headers_as_owner(item.topic, "test", item.envelope.key, encode(item.envelope)),
        )
    producer.flush(timeout=30)
    env = {
        **os.environ,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "DATABASE_URL": fresh_database,
        "REELSTREAM_TOPIC_PREFIX": prefixed,
    }
    settings = load_settings(env)
    _, ends = read_topics(kafka_bootstrap, prefixed)
    projector = spawn("projector", env=env, log_dir=tmp_path)
    try:
        projector.wait_ready(60)

        def caught_up() -> bool:
            try:
                positions = read_snapshot_sync(fresh_database, prefixed).positions
            except Exception:  # noqa: BLE001 - the schema may not exist yet
                return False
            return all(positions.get(key, 0) >= end for key, end in ends.items() if end)

        eventually(caught_up, 60)
    finally:
        projector.stop()

    clean = audit_platform(settings, Scope(), tmp_path / "clean", lookup=stand_in_lookup)
    assert clean.discrepancies == [], clean.discrepancies[:5]
    assert "0 differences" in clean.projection
    assert "**0 discrepancies**" in (tmp_path / "clean" / "audit.md").read_text()

    spin_id = str(
        next(item.envelope.id for item in history.emitted if item.envelope.type == "reelstream.spin.settled.v1")
    )
    asyncio.run(
        _admin(fresh_database, f"UPDATE projection.spins SET win_minor = win_minor + 100 WHERE event_id = '{spin_id}'")
    )
    edited = audit_platform(settings, Scope(), tmp_path / "edited", lookup=stand_in_lookup)
    assert [(f.check, f.subject) for f in edited.discrepancies] == [("projection-row-differs", f"spins {spin_id}")]
    assert "win_minor" in edited.discrepancies[0].detail
