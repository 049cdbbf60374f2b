"""The spin core as the loop runs it, with the protocol's signatures: its book changes only in `decide` and `evolve`.
A message moves the book's clock to its broker time; every PRUNE_EVERY_MESSAGES messages the book forgets the answered
requests that left the de-duplication window (a repeat of one is then refused by age), and keeps those in flight."""

import inspect

from services.spin.core import decide as core
from services.spin.core.decide import SpinCore
from shared.decision import Core
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import broker_time
from shared.events.spin import SpinRejected
from tests.support.spin import NOW_MS, make_context, one, request, request_bytes, spin_core


def test_the_spin_core_has_the_protocols_signatures_its_ports_bound_at_construction():
    for name in ("new_state", "decide", "evolve"):
        ours = inspect.signature(getattr(SpinCore, name)).parameters.values()
        theirs = inspect.signature(getattr(Core, name)).parameters.values()
        assert [parameter.kind for parameter in ours] == [parameter.kind for parameter in theirs]
    assert list(inspect.signature(SpinCore).parameters) == ["ctx"]


def _at(given, raw, at_ms, offset=0):
    return given.when(request(raw, b"p-1", at_ms, offset=offset), broker_time(at_ms))


def test_a_message_moves_the_books_clock_to_its_broker_time_and_never_back():
    given = spin_core(make_context()).given()
    _at(given, request_bytes(token="forged")[1], NOW_MS + 7)
    assert given.state.now_ms == NOW_MS + 7
    _at(given, request_bytes(token="forged", time_ms=NOW_MS + 3)[1], NOW_MS + 3)
    assert given.state.now_ms == NOW_MS + 7


def test_every_so_many_messages_the_book_forgets_the_answered_requests_that_left_the_window(monkeypatch):
    monkeypatch.setattr(core, "PRUNE_EVERY_MESSAGES", 3)
    given = spin_core(make_context()).given()
    answered_id, forged = request_bytes(token="forged")
    flying_id, good = request_bytes()
    _at(given, forged, NOW_MS)
    _at(given, good, NOW_MS, offset=1)
    later_ms = NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
    late_id, late = request_bytes(token="forged", time_ms=later_ms)
    refused = _at(given, late, later_ms, offset=2)  # the third message: the book keeps only the window after it
    assert one(refused.decision.answers, SpinRejected).data.code == "UNAUTHENTICATED"
    assert answered_id not in given.state.records
    assert flying_id in given.state.records and late_id in given.state.records


def test_between_the_prunings_an_answered_request_stays_and_its_repeat_is_answered_alike(monkeypatch):
    monkeypatch.setattr(core, "PRUNE_EVERY_MESSAGES", 100)
    given = spin_core(make_context()).given()
    answered_id, forged = request_bytes(token="forged")
    first = _at(given, forged, NOW_MS)
    later_ms = NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
    _at(given, request_bytes(token="forged", time_ms=later_ms)[1], later_ms, offset=1)
    assert answered_id in given.state.records
    _at(given, forged, NOW_MS, offset=0).then_repeated(*first.decision.answers)
