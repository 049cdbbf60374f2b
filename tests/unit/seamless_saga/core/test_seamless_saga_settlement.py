"""A seamless round's settlement: one win call (0 for a loss, the pool share inside it) acknowledged with the
operator's balance, retried with back-off until acknowledged or until its retry time, then reported; a refund is the
one rollback, retried until acknowledged; and the owed calls survive a restart (they are a fold of the facts)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from seamless.port import NoAnswerReason, Status
from shared.events.envelope import epoch_ms
from shared.events.seamless import (
    SeamlessAnswerRecorded,
    SeamlessBetAccepted,
    SeamlessRetryScheduled,
    SeamlessRollbackDecided,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
    SeamlessWinReported,
)

from services.seamless_saga.core import backoff
from services.seamless_saga.core.calls import call_of
from services.seamless_saga.core.state import Phase
from tests.support.gwt import data_of
from tests.support.proofs import jackpot_won, proven
from tests.support.seamless_saga import (
    PLAYER,
    SAGA,
    T0,
    answer,
    at,
    debit,
    no_answer,
    place,
    refund,
    settle,
    wager_id,
)


def an_accepted_bet():
    given = SAGA.given()
    bet = given.when(debit(1), T0).decision.events[0]
    given.when(answer(bet), at(30)).then(SeamlessAnswerRecorded, SeamlessBetAccepted)
    return given


def a_win_decided(house_win_minor: int = 250):
    given = an_accepted_bet()
    then = given.when(settle(1, house_win_minor), at(100)).then(SeamlessWinDecided)
    return then.decision.events[0], given


def test_a_settlement_of_an_accepted_bet_is_one_win_call_against_the_bet():
    win, given = a_win_decided(250)
    assert (win.data.amount_minor, win.data.give_up_at) == (250, at(100) + timedelta(days=1))
    round_ = given.state.rounds[str(wager_id(1))]
    call = call_of(round_, round_.open_call)
    assert (call.kind, call.request_id, call.amount_minor) == ("win", win.id, 250)
    assert str(call.bet_transaction_id) == round_.bet_call_id


def test_a_losing_spin_is_a_win_of_zero():
    win, _ = a_win_decided(0)
    assert win.data.amount_minor == 0


def test_a_pool_share_rides_in_the_rounds_one_win_when_the_jackpot_proves_it():
    given = an_accepted_bet()
    proof = proven(jackpot_won(wager_id(1), PLAYER, 5_000, 100))
    then = given.when(settle(1, 10, 5_000, (proof,)), at(100)).then(SeamlessWinDecided)
    won = data_of(then.decision, SeamlessWinDecided)[0]
    assert (won.amount_minor, won.house_win_minor, won.jackpot_win_minor) == (5_010, 10, 5_000)


def test_a_pool_share_without_the_jackpots_proof_is_refused():
    given = an_accepted_bet()
    given.when(settle(1, 10, 5_000), at(100)).then().then_dead_letters("JACKPOT_UNPROVEN")


def test_a_settlement_of_a_bet_not_accepted_is_refused():
    given = SAGA.given()
    given.when(debit(1), T0)
    given.when(settle(1, 10), at(10)).then().then_dead_letters("WAGER_ALREADY_CLOSED")
    SAGA.given().when(settle(9, 10), T0).then().then_dead_letters("WAGER_NOT_FOUND")


def test_a_win_acknowledged_settles_the_round_with_the_operators_balance_from_that_call():
    win, given = a_win_decided(250)
    then = given.when(answer(win, balance_minor=1_150), at(130)).then(SeamlessAnswerRecorded, SeamlessWinAcknowledged)
    acknowledged = data_of(then.decision, SeamlessWinAcknowledged)[0]
    assert (acknowledged.amount_minor, acknowledged.balance_after_minor) == (250, 1_150)
    assert then.state.rounds[str(wager_id(1))].phase is Phase.WON
    assert given.when(settle(1, 250), at(140)).then().decision.repeats == 1  # the settlement repeated


def test_a_win_is_retried_with_growing_back_off_until_acknowledged():
    win, given = a_win_decided()
    now, waits = at(200), []
    for attempt in range(1, 6):
        then = given.when(no_answer(win, NoAnswerReason.HTTP_ERROR, attempt), now)
        then.then(SeamlessAnswerRecorded, SeamlessRetryScheduled)
        scheduled = data_of(then.decision, SeamlessRetryScheduled)[0]
        assert (scheduled.attempt, scheduled.call_id) == (attempt + 1, win.id)
        waits.append(epoch_ms(scheduled.due_at) - epoch_ms(now))
        assert given.state.due(epoch_ms(scheduled.due_at) - 1) == []
        assert len(given.state.due(epoch_ms(scheduled.due_at))) == 1
        now = scheduled.due_at
    assert waits == [backoff.delay_ms(attempt, 0.0) for attempt in range(1, 6)] == [500, 1_000, 2_000, 4_000, 8_000]
    given.when(answer(win, attempt=6), now).then(SeamlessAnswerRecorded, SeamlessWinAcknowledged)


def test_a_win_still_unacknowledged_at_its_retry_time_is_reported_and_no_longer_retried():
    win, given = a_win_decided()
    given.when(answer(win, Status.ERROR), at(200)).then(SeamlessAnswerRecorded, SeamlessRetryScheduled)
    late = at(100) + timedelta(days=1)
    then = given.when(no_answer(win, attempt=2), late).then(SeamlessAnswerRecorded, SeamlessWinReported)
    reported = data_of(then.decision, SeamlessWinReported)[0]
    assert (reported.attempts, reported.last_status, reported.amount_minor) == (2, "TIMEOUT", 250)
    assert given.state.due(epoch_ms(late) * 2) == []


def test_a_placed_wager_decides_its_win_as_soon_as_the_bet_is_accepted():
    given = SAGA.given()
    bet = given.when(place(1, 100, win_minor=40), T0).decision.events[0]
    then = given.when(answer(bet), at(30)).then(SeamlessAnswerRecorded, SeamlessBetAccepted, SeamlessWinDecided)
    assert data_of(then.decision, SeamlessWinDecided)[0].amount_minor == 40


def test_a_refund_of_an_accepted_bet_is_its_one_rollback_retried_until_acknowledged():
    given = an_accepted_bet()
    rollback = given.when(refund(1), at(100)).then(SeamlessRollbackDecided).decision.events[0]
    assert given.when(refund(1), at(110)).then().decision.repeats == 1
    given.when(answer(rollback, Status.ERROR), at(200)).then(SeamlessAnswerRecorded, SeamlessRetryScheduled)
    given.when(no_answer(rollback, attempt=2), at(900)).then(SeamlessAnswerRecorded, SeamlessRetryScheduled)
    then = given.when(answer(rollback, attempt=3), at(3_000)).then(SeamlessAnswerRecorded, SeamlessRolledBack)
    assert data_of(then.decision, SeamlessRolledBack)[0].amount_minor == 100
    given.when(settle(1, 10), at(3_100)).then().then_dead_letters("WAGER_ALREADY_CLOSED")


@pytest.mark.parametrize("status", [Status.OK, Status.UNKNOWN_TRANSACTION, Status.ALREADY_ROLLED_BACK])
def test_a_rollback_is_acknowledged_by_ok_unknown_bet_or_already_rolled_back(status):
    given = an_accepted_bet()
    rollback = given.when(refund(1), at(100)).decision.events[0]
    given.when(answer(rollback, status), at(200)).then(SeamlessAnswerRecorded, SeamlessRolledBack)


def test_the_owed_calls_survive_a_restart_as_a_fold_of_the_facts():
    win, given = a_win_decided()
    retried = given.when(no_answer(win), at(200)).decision.events
    facts = (*_facts_of(), *retried)
    restored = SAGA.given(*facts)
    (before,) = given.state.due(10**15)
    (after,) = restored.state.due(10**15)
    assert after[1] == before[1] and call_of(*after) == call_of(*before)


def _facts_of():
    """The facts of a_win_decided(), decided again on a fresh state (their ids are deterministic)."""
    fresh = SAGA.given()
    bet = fresh.when(debit(1), T0).decision.events
    accepted = fresh.when(answer(bet[0]), at(30)).decision.events
    won = fresh.when(settle(1, 250), at(100)).decision.events
    return (*bet, *accepted, *won)
