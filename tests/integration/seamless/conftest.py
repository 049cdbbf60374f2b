"""The reference wallet on a free port with a database of its own (tests/support/seamless.py)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from deploy.local.postgres import drop_database
from tests.support.projector import admin_sql, database_url_for
from tests.support.seamless import start_wallet


@pytest.fixture
def wallet_database(database_url: str):
    database = f"t_{uuid.uuid4().hex}"
    asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
    yield database_url_for(database_url, database)
    asyncio.run(drop_database(database_url, database))


@pytest.fixture
async def wallet(wallet_database: str):
    runner, running = await start_wallet(wallet_database)
    yield running
    await runner.cleanup()
    await running.ledger.close()
