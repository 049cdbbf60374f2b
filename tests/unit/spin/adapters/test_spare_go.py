"""A spin spare's go (services/spin/app.py:_follow_until): the warm books are handed over once they are ready and
the step under way has finished; a go before they are ready, or a step that outlasts TAKE_WAIT_S, drops them (the
takeover then restores from the snapshots); a supervisor that went away gets nothing."""

from __future__ import annotations

import asyncio

import pytest

from services.spin import app


class _Books:
    """WarmBooks' surface: `ready` after `restore_s`, then steps of `step_s` until stopped; cleared when cancelled."""

    def __init__(self, restore_s: float, step_s: float) -> None:
        self.restore_s, self.step_s = restore_s, step_s
        self.ready, self.books, self.steps = False, {}, 0

    async def follow(self, stop: asyncio.Event) -> None:
        try:
            await asyncio.sleep(self.restore_s)
            self.ready, self.books = True, {0: "book"}
            while not stop.is_set():
                await asyncio.sleep(self.step_s)
                self.steps += 1
        except asyncio.CancelledError:
            self.books.clear()
            raise


def _go(books: _Books, answer: bool, after_s: float, monkeypatch) -> tuple[object, float]:
    monkeypatch.setattr(app, "WarmBooks", lambda settings, catalog: books)
    monkeypatch.setattr(app, "TAKE_WAIT_S", 0.3)

    def go() -> bool:
        import time

        time.sleep(after_s)
        return answer

    async def run():
        started = asyncio.get_running_loop().time()
        found = await app._follow_until(go, None, None)
        return found, asyncio.get_running_loop().time() - started

    return asyncio.run(run())


def test_a_go_after_the_books_are_ready_hands_them_over_once_the_step_is_done(monkeypatch):
    books = _Books(restore_s=0.05, step_s=0.1)
    found, took_s = _go(books, True, 0.3, monkeypatch)
    assert found is books and books.books == {0: "book"} and books.steps >= 1
    assert took_s < 0.3 + 0.1 + 0.1


def test_a_go_before_the_books_are_ready_drops_them_at_once(monkeypatch):
    books = _Books(restore_s=5.0, step_s=0.1)
    found, took_s = _go(books, True, 0.05, monkeypatch)
    assert found is books and books.books == {} and not books.ready
    assert took_s < 0.5


def test_a_step_that_outlasts_the_wait_is_cancelled_and_its_books_dropped(monkeypatch):
    books = _Books(restore_s=0.0, step_s=5.0)
    found, took_s = _go(books, True, 0.1, monkeypatch)
    assert found is books and books.books == {}
    assert 0.3 <= took_s < 1.0


@pytest.mark.parametrize("ready_s", [0.0, 5.0])
def test_a_supervisor_that_went_away_gets_no_books(monkeypatch, ready_s):
    found, _ = _go(_Books(restore_s=ready_s, step_s=0.1), False, 0.1, monkeypatch)
    assert found is None
