"""The spin's latency histogram is labelled by game only for games the catalog knows: a game client names any game it
likes (refused UNKNOWN_GAME, its request still in the book), and a series per name would grow without bound."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

from services.spin.adapters.latency import SPIN_SECONDS, UNKNOWN, AnswerLatency
from services.spin.core.book import Fingerprint, SpinBook, SpinRecord

KNOWN = {"rising-joker"}


def _answered(book: SpinBook, game: str) -> SimpleNamespace:
    request_id = uuid.uuid4()
    book.records[request_id] = SpinRecord(request_id, Fingerprint("p1", game, 10, "EUR"), time_ms=0)
    return SimpleNamespace(data=SimpleNamespace(request_id=request_id))


def _games_with_series() -> set[str]:
    return {
        sample.labels["game"]
        for metric in SPIN_SECONDS.collect()
        for sample in metric.samples
        if sample.name.endswith("_count")
    }


def test_a_game_the_catalog_does_not_know_is_observed_as_unknown_and_makes_no_series_of_its_own():
    book, latency = SpinBook(), AnswerLatency(lambda game: game in KNOWN)
    names = [f"made-up-{n}" for n in range(50)]
    latency.observe(book, tuple(_answered(book, name) for name in names))
    assert _games_with_series().isdisjoint(names)
    assert UNKNOWN in _games_with_series()


def test_a_known_games_answers_are_observed_under_its_name_each_time():
    book, latency = SpinBook(), AnswerLatency(lambda game: game in KNOWN)
    before = SPIN_SECONDS.labels("rising-joker", "settled")._sum.get()
    count = lambda: next(  # noqa: E731
        sample.value
        for metric in SPIN_SECONDS.collect()
        for sample in metric.samples
        if sample.name.endswith("_count") and sample.labels == {"game": "rising-joker", "outcome": "settled"}
    )
    latency.observe(book, (_answered(book, "rising-joker"),))
    first = count()
    latency.observe(book, (_answered(book, "rising-joker"), _answered(book, "rising-joker")))
    assert count() == first + 2
    assert SPIN_SECONDS.labels("rising-joker", "settled")._sum.get() > before
