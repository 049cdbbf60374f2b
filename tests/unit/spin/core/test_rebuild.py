"""A book rebuilt from the written facts (journal, answers, jackpot answers) decides exactly as the live book did."""

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import broker_time, encode
from shared.events.jackpot import Claim
from shared.events.spin import SpinRejected
from shared.events.wallet import DebitWager, SettleWager

from tests.support.spin import (
    CLAIM,
    NOW_MS,
    Seeds,
    debited_for,
    fact,
    make_context,
    one,
    request,
    request_bytes,
    settled_for,
    spin_core,
    won_for,
)

NOW = broker_time(NOW_MS)


def rebuilt(ctx, *decided, state: SpinBook | None = None):
    """The spin given what `decided` wrote (journal facts, then answers), folded as a restore folds them."""
    facts = [event for then in decided for event in then.decision.events]
    facts += [answer for then in decided for answer in then.decision.answers]
    given = spin_core(ctx).given(*facts, state=state)
    fold.finish_rebuild(given.state, ctx.catalog)
    return given


def written(then) -> list[bytes]:
    """What a decision sends, encoded: its commands, then its answers."""
    return [encode(message) for message in (*then.decision.commands, *then.decision.answers)]


def test_an_interrupted_claiming_spin_resumes_with_the_persisted_seed_and_settles_once():
    seeds = Seeds(CLAIM)
    ctx = make_context(seeds)
    live = spin_core(ctx).given()
    request_id, raw = request_bytes(stake=100)
    asked = live.when(request(raw), NOW)
    played = live.when(fact(debited_for(one(asked.decision.commands, DebitWager))), NOW)
    book = rebuilt(ctx, asked, played)
    assert book.state.records[request_id].status == "claiming"
    assert seeds.drawn == 1
    won, _ = won_for(one(played.decision.commands, Claim))
    settle_live = live.when(fact(won), NOW)
    settle_rebuilt = book.when(fact(won), NOW)
    assert written(settle_rebuilt) == written(settle_live)
    answer_live = live.when(fact(settled_for(one(settle_live.decision.commands, SettleWager))), NOW)
    answer_rebuilt = book.when(fact(settled_for(one(settle_rebuilt.decision.commands, SettleWager))), NOW)
    assert written(answer_rebuilt) == written(answer_live)
    assert seeds.drawn == 1


def test_a_rebuilt_book_answers_a_repeat_with_its_stored_answer():
    ctx = make_context()
    _, raw = request_bytes(token="forged")
    first = spin_core(ctx).given().when(request(raw), NOW)
    rebuilt(ctx, first).when(request(raw), NOW).then_commands().then_answers().then_repeated(*first.decision.answers)


def test_answered_requests_older_than_the_window_are_pruned_and_in_flight_ones_kept():
    ctx = make_context()
    given = spin_core(ctx).given()
    answered_id, forged = request_bytes(token="forged")
    flying_id, good = request_bytes()
    given.when(request(forged, offset=0), NOW)
    given.when(request(good, offset=1), NOW)
    assert fold.prune(given.state, ctx.catalog, NOW_MS + 1) == 1
    assert answered_id not in given.state.records
    assert flying_id in given.state.records
    late_ms = NOW_MS + DEDUP_WINDOW_MS + 1
    late = given.when(request(forged, now_ms=late_ms, offset=2), broker_time(late_ms))
    assert one(late.decision.answers, SpinRejected).data.code == "REQUEST_EXPIRED"


def test_a_rebuild_keeps_only_what_the_live_book_keeps_after_its_pruning():
    # Scenario: an answered request and an accepted one in flight, then history runs past the window; the rebuilt
    # book drops the answered one as the live path's pruning would, and keeps the one in flight.
    ctx = make_context()
    live = spin_core(ctx).given()
    answered_id, forged = request_bytes(token="forged")
    flying_id, good = request_bytes()
    decided = live.when(request(forged, offset=0), NOW), live.when(request(good, offset=1), NOW)
    later = SpinBook(now_ms=NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)  # the history read ends a window later
    book = rebuilt(ctx, *decided, state=later).state
    assert answered_id not in book.records
    assert flying_id in book.records
