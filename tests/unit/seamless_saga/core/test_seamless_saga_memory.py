"""The book's bound: a closed round is kept for the de-duplication window and then forgotten, an open one never; a
wager older than the window is refused, so a forgotten round is never bet again."""

from __future__ import annotations

from datetime import timedelta

from shared.config import DEDUP_WINDOW_MS
from shared.events.seamless import SeamlessBetDecided

from tests.support.seamless_saga import SAGA, T0, answer, at, debit, sent, settle, wager_id


def test_a_closed_round_is_forgotten_after_the_window_and_an_open_one_is_kept():
    given = SAGA.given()
    bet = given.when(debit(1), T0).decision.events[0]
    given.when(answer(bet), at(10))
    win = given.when(settle(1, 0), at(20)).decision.events[0]
    given.when(answer(win), at(30))  # round 1 closes at 30 ms
    given.when(debit(2), at(40))  # round 2 stays open: its bet is never answered here
    later = at(30 + DEDUP_WINDOW_MS)
    given.when(sent(debit(3).data, later), later)
    assert str(wager_id(1)) in given.state.rounds  # not yet past the window
    latest = at(31 + DEDUP_WINDOW_MS)
    given.when(sent(debit(4).data, latest), latest)
    assert str(wager_id(1)) not in given.state.rounds
    assert str(win.id) not in given.state.round_of_call and str(bet.id) not in given.state.round_of_call
    assert str(wager_id(2)) in given.state.rounds


def test_a_wager_older_than_the_window_is_refused_and_a_fresh_one_is_a_bet():
    late = T0 + timedelta(milliseconds=DEDUP_WINDOW_MS + 1)
    SAGA.given().when(debit(1), late).then().then_dead_letters("REQUEST_EXPIRED")
    SAGA.given().when(debit(1), T0 + timedelta(milliseconds=DEDUP_WINDOW_MS)).then(SeamlessBetDecided)
