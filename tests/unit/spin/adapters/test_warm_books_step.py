"""A warm books step (services/spin/adapters/warm.py) never waits out a killed owner's open transaction when the go
comes: that transaction keeps spin.journal's last stable offset below its high watermark until the next owner's
producer aborts it, so a step waiting for the journal to settle returns at once on `stop`, folding nothing."""

from __future__ import annotations

import shared.warm

import asyncio

from services.spin.adapters import warm
from shared.snapshots import Restoration
from services.spin.core.book import SpinBook
from shared.config import Settings
from tests.support.spin import make_context


class _Ends:
    """A reader's end offsets: every journal partition at `journal`, the others at 0."""

    def __init__(self, journal: int) -> None:
        self.journal = journal

    async def end_offsets(self, tps):
        return {tp: self.journal if tp.topic.endswith("spin.journal") else 0 for tp in tps}


def _books(settings: Settings) -> warm.WarmBooks:
    books = warm.WarmBooks(settings, make_context().catalog)
    positions = {"spin.journal": 0, "spin.events": 0, "spin.jackpot-answers": 0}
    books.books = {0: Restoration(SpinBook(), None, 0, (), None, 0, None, positions=positions)}
    return books


def test_a_step_waiting_for_an_open_journal_transaction_returns_at_once_on_stop():
    settings = Settings("127.0.0.1:1", "postgresql://x/y", "", "test", "wb.")
    books = _books(settings)
    stop = asyncio.Event()

    async def go_after(delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        stop.set()

    async def scenario() -> tuple[bool, float]:
        started = asyncio.get_running_loop().time()
        setter = asyncio.create_task(go_after(0.1))
        # committed (read_committed) sees the journal at 3, everything (read_uncommitted) at 5: a transaction open
        folded = await books.step(_Ends(3), _Ends(5), stop)
        await setter
        return folded, asyncio.get_running_loop().time() - started

    folded, took_s = asyncio.run(scenario())
    assert folded is False and took_s < 0.5 < warm.JOURNAL_SETTLE_S
    assert books.books[0].positions["spin.journal"] == 0 and books.steps == 0


def test_without_a_go_a_journal_that_never_settles_skips_the_step_after_the_settle_limit(monkeypatch):
    monkeypatch.setattr(warm, "JOURNAL_SETTLE_S", 0.2)
    books = _books(Settings("127.0.0.1:1", "postgresql://x/y", "", "test", "wb."))
    assert asyncio.run(books.step(_Ends(3), _Ends(5), asyncio.Event())) is False
    assert books.steps == 0


def test_books_that_failed_to_start_start_over_until_they_follow(monkeypatch):
    # A spare started while the broker restarts cannot connect: its books start over, not give up for good.
    monkeypatch.setattr(shared.warm, "RETRY_S", 0.01)  # the lifecycle every warm spare shares
    books = _books(Settings("127.0.0.1:1", "postgresql://x/y", "", "test", "wb."))
    attempts = []

    async def flaky_follow(stop: asyncio.Event) -> None:
        attempts.append(dict(books.books))
        if len(attempts) < 3:
            books.ready = True
            raise ConnectionError("Unable to bootstrap")
        books.ready = True
        stop.set()

    monkeypatch.setattr(books, "_follow", flaky_follow)
    asyncio.run(books.follow(asyncio.Event()))
    assert len(attempts) == 3 and attempts[1] == {} and books.ready
