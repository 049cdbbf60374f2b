"""The answers the spin's adapter keeps beside a book (services/spin/adapters/answers.py): each one the book names is
kept until the book forgets its request, so a repeat of it always goes out as first written; once the book has
forgotten some, they are dropped, and only they.

Scenario: two refused requests a window apart; the book forgets the first (its repeat is then refused by age) and
keeps the second, whose repeat is its first answer byte for byte."""

from services.spin.adapters.answers import trimmed
from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import decode
from tests.support.spin import NOW_MS, answers_of, handle_request, make_context, only, request_bytes

LATER_MS = NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1


def test_the_answers_of_forgotten_requests_are_dropped_and_a_kept_ones_repeat_is_its_first_bytes():
    book, ctx = SpinBook(), make_context()
    old_id, old = request_bytes(token="forged")
    new_id, new = request_bytes(token="forged", time_ms=LATER_MS)
    handle_request(book, ctx, old, b"p-1", NOW_MS, 0, 0)
    first = only(handle_request(book, ctx, new, b"p-1", LATER_MS, 0, 1).outputs, "answer")
    kept = answers_of(book)
    trimmed(book, kept)
    assert len(kept) == 2, "nothing forgotten: every answer kept"
    assert fold.prune(book, ctx.catalog, fold.window_start(book.now_ms)) == 1
    trimmed(book, kept)
    assert [name for name, _ in kept.places()] == [str(book.records[new_id].answer_id)]
    again = only(handle_request(book, ctx, new, b"p-1", LATER_MS, 0, 2).outputs, "answer")
    assert (again.key, again.value) == (first.key, first.value)
    late = only(handle_request(book, ctx, old, b"p-1", LATER_MS, 0, 3).outputs, "answer")
    assert old_id not in book.records and decode(late.value).data.code == "REQUEST_EXPIRED"
