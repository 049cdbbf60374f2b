"""A spin rebuild yields to the event loop while it folds a long history (every FOLD_YIELD_EVERY records): the group
heartbeats share that loop, and a fold in one go longer than the session timeout got the member evicted. The reader
is a stand-in that answers at once, so only the fold's own yields give another task a turn."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

from services.spin.adapters import rebuild
from shared.config import Settings
from shared.topics import SPIN_JOURNAL
from tests.support.spin import make_context

RECORDS = 2_500


class _Reader:
    def __init__(self, ends: dict) -> None:
        self.ends = ends

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    def assign(self, tps) -> None:
        return None

    async def end_offsets(self, tps) -> dict:
        return {tp: self.ends(tp) for tp in tps}

    async def beginning_offsets(self, tps) -> dict:
        return {tp: 0 for tp in tps}


def test_a_long_history_is_folded_with_turns_for_the_other_tasks(monkeypatch, caplog):
    settings = Settings("127.0.0.1:1", "postgresql://x/y", "", "test", "rb.")
    history = [
        SimpleNamespace(topic=settings.topic(SPIN_JOURNAL), partition=0, offset=n, key=b"p", value=b"x", headers=[])
        for n in range(RECORDS)
    ]
    for n, record in enumerate(history):
        record.timestamp = 1_700_000_000_000 + n

    def journal(tp) -> list:
        return history if tp.topic == settings.topic(SPIN_JOURNAL) else []

    async def read_range(reader, starts, ends):
        return {tp: journal(tp)[starts[tp] : ends[tp]] for tp in ends}

    monkeypatch.setattr(rebuild, "aio_consumer", lambda **options: _Reader(lambda tp: len(journal(tp))))
    monkeypatch.setattr(rebuild, "read_range", read_range)
    caplog.set_level(logging.CRITICAL, logger="reelstream.spin.rebuild")  # every record is quarantined: not ours

    async def both() -> tuple[int, dict]:
        turns, done = 0, asyncio.Event()

        async def other_task() -> None:
            nonlocal turns
            while not done.is_set():
                await asyncio.sleep(0)
                turns += 1

        ticker = asyncio.create_task(other_task())
        await asyncio.sleep(0)  # the ticker is waiting for its next turn
        before = turns
        books = await rebuild.rebuild_books(settings, make_context().catalog, [0])
        during = turns - before
        done.set()
        await ticker
        return during, books

    during, books = asyncio.run(both())
    assert during >= RECORDS // rebuild.FOLD_YIELD_EVERY
    assert books[0].book.records == {} and books[0].book.now_ms == 1_700_000_000_000 + RECORDS - 1
