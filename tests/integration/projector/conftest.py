"""Fixtures of projector and ops tests: a whole isolated deployment (uuid-prefixed topics, a fresh database)."""

from __future__ import annotations

from deploy.local.postgres import drop_database
import asyncio
import uuid
from pathlib import Path

import pytest

from tests.support.projector import Deployment, admin_sql, database_url_for
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS


@pytest.fixture
def deployment(kafka_bootstrap: str, database_url: str, tmp_path: Path):
    """A whole isolated deployment: every platform topic under a uuid prefix and a database of its own."""
    prefix = f"pj-{uuid.uuid4().hex[:12]}."
    database = f"t_{uuid.uuid4().hex}"
    ensure_topics(kafka_bootstrap, prefix=prefix)
    asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
    yield Deployment(prefix, kafka_bootstrap, database_url_for(database_url, database), tmp_path / "logs")
    asyncio.run(drop_database(database_url, database))
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


@pytest.fixture
def fresh_database(database_url: str):
    """A database of its own (no topics), for tests of the projection's schemas alone."""
    database = f"t_{uuid.uuid4().hex}"
    asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
    yield database_url_for(database_url, database)
    asyncio.run(drop_database(database_url, database))
