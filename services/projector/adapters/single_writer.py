"""The live projector is a single writer, enforced by Postgres: it holds a session-level advisory lock on its own
connection while it projects, so a second projector on the same database stands by and takes over only once the
first's connection is gone (a crash, a kill, a lost node), never beside it."""

from __future__ import annotations

import asyncio
import hashlib
import logging

import asyncpg

log = logging.getLogger("reelstream.projector")
# How often a standby asks for the lock: a takeover waits at most this long after the holder's connection ends.
STANDBY_RETRY_S = 1.0
_DOMAIN = b"reelstream.projector.single-writer\x00"


def lock_key(topic_prefix: str) -> int:
    """The advisory lock's key (a signed 64-bit integer): one per deployment prefix, so isolated deployments sharing
    a database (tests) do not wait for each other; advisory locks are per database already."""
    digest = hashlib.sha256(_DOMAIN + topic_prefix.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def hold(conn: asyncpg.Connection, key: int, stop: asyncio.Event, retry_s: float = STANDBY_RETRY_S) -> bool:
    """Wait until `conn` holds the lock (True), standing by while another session does; False once `stop` is set."""
    standing_by = False
    while not stop.is_set():
        if await conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
            if standing_by:
                log.warning("the other projector's lock is released: taking over as the single writer")
            return True
        if not standing_by:
            log.warning("another projector holds the single-writer lock (key %d) on this database: standing by", key)
            standing_by = True
        try:
            await asyncio.wait_for(stop.wait(), retry_s)
        except asyncio.TimeoutError:
            pass
    return False
