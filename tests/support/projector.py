"""Test support for projector and ops tests: isolated deployments, sample traffic, exactly-once checks, table
digests."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import asyncpg
from bench.synthetic.publish import publish
from bench.synthetic.samples import Sample, sample_events
from services.projector.core.tables import COMPARED_TABLES

START = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


@dataclass
class Deployment:
    prefix: str
    bootstrap: str
    database_url: str
    log_dir: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "REELSTREAM_TOPIC_PREFIX": self.prefix,
            "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap,
            "DATABASE_URL": self.database_url,
        }

    def topic(self, name: str) -> str:
        return self.prefix + name

    def publish(self, samples) -> int:
        return publish(self.bootstrap, samples, self.topic)


def database_url_for(server_url: str, database: str) -> str:
    return server_url.rsplit("/", 1)[0] + "/" + database


async def admin_sql(server_url: str, sql: str) -> None:
    conn = await asyncpg.connect(server_url, timeout=15)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@functools.lru_cache(maxsize=16)
def samples(count_spins: int, *, first: int = 0, tag: str = "s") -> tuple[Sample, ...]:
    """Sample traffic (cached: building envelopes costs ~1 ms each); ids are deterministic, topics are fresh."""
    return tuple(sample_events(count_spins, START, tag=tag, first=first))


async def fetchval(url: str, sql: str, *args):
    conn = await asyncpg.connect(url, timeout=15)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


def projected_events(url: str) -> int:
    """Events in the live projection (0 while it does not exist yet)."""

    async def count() -> int:
        conn = await asyncpg.connect(url, timeout=15)
        try:
            if not await conn.fetchval("SELECT to_regclass('projection.events') IS NOT NULL"):
                return 0
            return await conn.fetchval("SELECT count(*) FROM projection.events")
        finally:
            await conn.close()

    return asyncio.run(count())


async def table_digests(url: str, schema: str) -> dict[str, tuple[int, str]]:
    """(row count, md5 of every row's text in a total order) per compared table of a physical schema."""
    conn = await asyncpg.connect(url, timeout=15)
    try:
        digests = {}
        for table in COMPARED_TABLES:
            digests[table] = tuple(
                await conn.fetchrow(
                    f"SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') "
                    f'FROM "{schema}".{table} t'
                )
            )
        return digests
    finally:
        await conn.close()


def expected_counts(all_samples: list[Sample]) -> dict[str, int]:
    """What an exactly-once projection of these samples holds (distinct event ids)."""
    distinct = {s.envelope.id: s for s in all_samples}
    types = [s.envelope.type for s in distinct.values()]
    return {"events": len(distinct), "spins": types.count("reelstream.spin.settled.v1")}


def assert_exactly_once(url: str, published) -> None:
    """Each published fact projected once: one events row per id, every posting once, balances equal to a fresh sum."""
    expected = expected_counts(published)
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.events")) == expected["events"]
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.spins")) == expected["spins"]
    postings = sum(
        len(s.envelope.data.postings)
        for s in {s.envelope.id: s for s in published}.values()
        if hasattr(s.envelope.data, "postings")
    )
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.ledger_postings")) == postings
    folded_vs_sum = asyncio.run(
        fetchval(
            url,
            """
        SELECT count(*) FROM projection.account_balances b FULL JOIN (
            SELECT account, currency, sum(amount_micro) AS total, count(*) AS n
            FROM projection.ledger_postings GROUP BY account, currency) p USING (account, currency)
        WHERE b.balance_micro IS DISTINCT FROM p.total OR b.postings IS DISTINCT FROM p.n""",
        )
    )
    assert folded_vs_sum == 0
    assert asyncio.run(fetchval(url, "SELECT sum(balance_micro) FROM projection.account_balances")) == 0


def at_log_end(deployment: Deployment) -> bool:
    """The stored positions of the live projection equal the end offsets of every source partition."""
    from services.projector.adapters.kafka_io import SOURCE_TOPICS
    from services.projector.adapters.rebuild import end_offsets

    ends = asyncio.run(end_offsets(deployment.bootstrap, tuple(deployment.topic(t) for t in SOURCE_TOPICS)))
    stored = asyncio.run(
        fetchval(deployment.database_url, "SELECT coalesce(sum(next_offset), 0) FROM projection.positions")
    )
    return stored == sum(ends.values())


class OutageProxy:
    """A TCP relay in front of Postgres that a test can cut (every connection reset, new ones refused) and restore.

    It makes a real outage for one client without stopping the shared cluster other tests are using.
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        import socket
        import threading

        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._sockets: list = []
        self._down = False
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database_url: str) -> str:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(database_url)
        credentials = parts.netloc.rsplit("@", 1)[0]
        return urlunsplit(parts._replace(netloc=f"{credentials}@127.0.0.1:{self.port}"))

    def _accept(self) -> None:
        import socket
        import threading

        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._down:
                client.close()
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.close()
                except OSError:
                    pass

    def cut(self) -> None:
        import socket

        self._down = True
        with self._lock:
            doomed, self._sockets = self._sockets, []
        for sock in doomed:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def restore(self) -> None:
        self._down = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()
