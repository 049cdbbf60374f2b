"""A throwaway deployment for chaos and fuzz runs: every topic (and on a secured broker every role's ACLs) under a
fresh prefix, a database of its own, and the environment its services run with; all dropped afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import asyncpg

from deploy.local.postgres import drop_database
from shared.config import Settings
from shared.topic_admin import delete_prefixed, ensure_topics


@dataclass(frozen=True)
class Deployment:
    settings: Settings  # its prefix and database
    env: dict[str, str]  # what each of its service processes gets on top of the caller's environment

    @property
    def prefix(self) -> str:
        return self.settings.topic_prefix

    def topic(self, name: str) -> str:
        return self.settings.topic(name)


@contextlib.contextmanager
def fresh_deployment(base: Settings, tag: str, env: dict[str, str] | None = None) -> Iterator[Deployment]:
    """Topics under `<tag>-<random>.` and a database named after them; `env` is added to the services' environment
    (the prefix, the database URL and the session keys are always in it)."""
    prefix = f"{tag}-{uuid.uuid4().hex[:10]}."
    database = prefix.rstrip(".").replace("-", "_")
    database_url = base.database_url.rsplit("/", 1)[0] + "/" + database
    settings = Settings(base.kafka_bootstrap_servers, database_url, base.session_secret, base.environment, prefix)
    ensure_topics(settings.kafka_bootstrap_servers, prefix=prefix)
    asyncio.run(sql(base.database_url, f'CREATE DATABASE "{database}"'))
    try:
        yield Deployment(
            settings,
            {
                "REELSTREAM_TOPIC_PREFIX": prefix,
                "DATABASE_URL": database_url,
                "REELSTREAM_SESSION_SECRET": settings.session_secret,
                **(env or {}),
            },
        )
    finally:
        delete_prefixed(settings.kafka_bootstrap_servers, prefix)
        asyncio.run(drop_database(base.database_url, database))


async def sql(url: str, statement: str) -> None:
    conn = await asyncpg.connect(url, timeout=30)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _exit_on_sigterm(signum: int, _frame) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """A SIGTERM to a run (a long one stopped by hand) ends it through its `finally` blocks: the services it started
    are stopped, its deployment dropped and its report written (the default action left the processes running). The
    previous handler comes back afterwards; off the main thread nothing changes (only it may set handlers)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
