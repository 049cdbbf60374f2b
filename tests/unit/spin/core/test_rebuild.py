"""A book rebuilt from the written facts (journal, answers, jackpot answers) decides exactly as the live book did."""

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import decode

from tests.support.spin import (
    read_back,
    CLAIM,
    handle_event,
    handle_request,
    NOW_MS,
    Seeds,
    debited_for,
    make_context,
    only,
    request_bytes,
    settled_for,
    won_for,
)


def rebuilt(written, ctx):
    book = SpinBook()
    for out in sorted(written, key=lambda out: ("journal", "seed", "answer").index(out.kind)):
        fold.evolve(book, read_back(decode(out.value), out.value))
    fold.finish_rebuild(book, ctx.catalog)
    return book


def folded_kinds(effects):
    return [out for out in effects.journal + effects.outputs if out.kind in ("journal", "seed", "answer")]


def test_an_interrupted_claiming_spin_resumes_with_the_persisted_seed_and_settles_once():
    seeds = Seeds(CLAIM)
    live, ctx = SpinBook(), make_context(seeds)
    request_id, raw = request_bytes(stake=100)
    asked = handle_request(live, ctx, raw, b"p-1", NOW_MS, 0, 0)
    played = handle_event(live, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    book = rebuilt(folded_kinds(asked) + folded_kinds(played), ctx)
    assert book.records[request_id].status == "claiming"
    assert seeds.drawn == 1
    won, won_raw = won_for(only(played.outputs, "claim"))
    settle_live = handle_event(live, ctx, won, NOW_MS)
    settle_rebuilt = handle_event(book, ctx, won, NOW_MS)
    assert [out.value for out in settle_rebuilt.outputs] == [out.value for out in settle_live.outputs]
    answer_live = handle_event(live, ctx, settled_for(only(settle_live.outputs, "settle")), NOW_MS)
    answer_rebuilt = handle_event(book, ctx, settled_for(only(settle_rebuilt.outputs, "settle")), NOW_MS)
    assert only(answer_rebuilt.outputs, "answer").value == only(answer_live.outputs, "answer").value
    assert seeds.drawn == 1


def test_a_rebuilt_book_re_emits_a_stored_answer_for_a_repeat():
    live, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes(token="forged")
    first = handle_request(live, ctx, raw, b"p-1", NOW_MS, 0, 0)
    book = rebuilt(folded_kinds(first), ctx)
    assert (
        only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer").value
        == only(first.outputs, "answer").value
    )


def test_answered_requests_older_than_the_window_are_pruned_and_in_flight_ones_kept():
    book, ctx = SpinBook(), make_context()
    answered_id, forged = request_bytes(token="forged")
    flying_id, good = request_bytes()
    handle_request(book, ctx, forged, b"p-1", NOW_MS, 0, 0)
    handle_request(book, ctx, good, b"p-1", NOW_MS, 0, 1)
    assert fold.prune(book, ctx.catalog, NOW_MS + 1) == 1
    assert answered_id not in book.records
    assert flying_id in book.records
    late = handle_request(book, ctx, forged, b"p-1", NOW_MS + DEDUP_WINDOW_MS + 1, 0, 2)
    assert decode(only(late.outputs, "answer").value).data.code == "REQUEST_EXPIRED"


def test_a_rebuild_keeps_only_what_the_live_book_keeps_after_its_pruning():
    # Scenario: an answered request and an accepted one in flight, then history runs past the window; the rebuilt
    # book drops the answered one as the live path's pruning would, and keeps the one in flight.
    live, ctx = SpinBook(), make_context()
    answered_id, forged = request_bytes(token="forged")
    flying_id, good = request_bytes()
    written = folded_kinds(handle_request(live, ctx, forged, b"p-1", NOW_MS, 0, 0))
    written += folded_kinds(handle_request(live, ctx, good, b"p-1", NOW_MS, 0, 1))
    book = SpinBook(now_ms=NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)  # the history read ends a window later
    for out in written:
        fold.evolve(book, read_back(decode(out.value), out.value))
    fold.finish_rebuild(book, ctx.catalog)
    assert answered_id not in book.records
    assert flying_id in book.records
