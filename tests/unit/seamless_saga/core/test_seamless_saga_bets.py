"""A seamless round's bet: decided as a call with a deadline, accepted on OK, refused with the spin's refusal code,
rolled back whenever it may have been applied (no answer, a doubtful refusal, no answer in time); an answer after the
rollback, or a repeated answer, changes nothing."""

from __future__ import annotations

import pytest

from seamless.port import NoAnswerReason, Status
from shared.decision import Decision
from shared.events.envelope import epoch_ms
from shared.events.seamless import (
    SeamlessAnswerRecorded,
    SeamlessBetAccepted,
    SeamlessBetDecided,
    SeamlessBetRefused,
    SeamlessRollbackDecided,
    SeamlessRolledBack,
)

from services.seamless_saga.core.calls import call_of
from services.seamless_saga.core.messages import Tick
from services.seamless_saga.core.state import Phase
from tests.support.gwt import data_of
from tests.support.seamless_saga import (
    LEDGER_OPERATOR,
    SAGA,
    T0,
    answer,
    at,
    debit,
    no_answer,
    refund,
    settle,
    wager_id,
)


def a_bet_decided():
    decided = SAGA.given().when(debit(1), T0)
    return decided.decision.events[0], decided


def test_a_wager_of_a_seamless_operator_decides_a_bet_answered_by_its_timeout_whose_call_id_is_the_event_id():
    bet, decided = a_bet_decided()
    decided.then(SeamlessBetDecided)
    assert bet.data.answer_by == at(5_000) and bet.data.amount_minor == 100
    round_ = decided.state.rounds[str(wager_id(1))]
    (owed,) = [call for _, call in decided.state.due(epoch_ms(T0))]
    call = call_of(round_, owed)
    assert call.request_id == call.transaction_id == bet.id
    assert (call.kind, call.amount_minor, call.round_id) == ("bet", 100, str(wager_id(1)))


def test_a_wager_of_a_ledger_operator_is_none_of_the_sagas_business():
    """The saga reads all of wallet.internal beside the ledger wallet: other operators' wagers are the ledger's."""
    for command in (debit(1, operator_id=LEDGER_OPERATOR), settle(1, operator_id=None), refund(1, operator_id=None)):
        decided = SAGA.given().when(command, T0).then().then_dead_letters()
        assert decided.decision == Decision()


def test_a_bet_answered_ok_is_accepted_with_the_operators_balance():
    bet, decided = a_bet_decided()
    then = decided.when(answer(bet, balance_minor=900), at(40)).then(SeamlessAnswerRecorded, SeamlessBetAccepted)
    assert data_of(then.decision, SeamlessBetAccepted)[0].balance_minor == 900
    assert then.state.rounds[str(wager_id(1))].phase is Phase.ACCEPTED
    assert then.state.due(10**15) == []  # nothing owed until the settlement


@pytest.mark.parametrize(
    ("status", "code"), [(Status.INSUFFICIENT_FUNDS, "INSUFFICIENT_FUNDS"), (Status.LIMIT_REACHED, "LIMIT_EXCEEDED")]
)
def test_a_bet_surely_refused_is_the_spins_refusal_and_nothing_is_rolled_back(status, code):
    bet, decided = a_bet_decided()
    then = decided.when(answer(bet, status), at(40)).then(SeamlessAnswerRecorded, SeamlessBetRefused)
    (refused,) = data_of(then.decision, SeamlessBetRefused)
    assert (refused.code, refused.status, refused.rolled_back) == (code, status.value, False)
    assert then.state.rounds[str(wager_id(1))].phase is Phase.REFUSED


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (Status.SESSION_GONE, "UNAUTHENTICATED"),
        (Status.PLAYER_DISABLED, "ACCOUNT_CLOSED"),
        (Status.CURRENCY_MISMATCH, "CURRENCY_MISMATCH"),
        (Status.ERROR, "WALLET_UNAVAILABLE"),
        (Status.SIGNATURE_REFUSED, "WALLET_UNAVAILABLE"),
    ],
)
def test_a_bet_refused_in_doubt_is_the_spins_refusal_and_is_rolled_back(status, code):
    bet, decided = a_bet_decided()
    then = decided.when(answer(bet, status), at(40))
    then.then(SeamlessAnswerRecorded, SeamlessBetRefused, SeamlessRollbackDecided)
    (refused,) = data_of(then.decision, SeamlessBetRefused)
    assert (refused.code, refused.rolled_back) == (code, True)


@pytest.mark.parametrize("reason", list(NoAnswerReason))
def test_a_bet_without_an_answer_is_refused_wallet_unavailable_and_rolled_back(reason):
    bet, decided = a_bet_decided()
    then = decided.when(no_answer(bet, reason), at(1_000))
    then.then(SeamlessAnswerRecorded, SeamlessBetRefused, SeamlessRollbackDecided)
    assert data_of(then.decision, SeamlessBetRefused)[0].code == "WALLET_UNAVAILABLE"
    assert data_of(then.decision, SeamlessAnswerRecorded)[0].no_answer == reason.value
    (owed,) = [call for _, call in then.state.due(epoch_ms(at(1_000)))]
    assert owed.kind == "rollback"


def test_a_bet_unanswered_at_its_deadline_is_rolled_back_and_not_before():
    bet, decided = a_bet_decided()
    decided.when(Tick(), at(5_000)).then()
    then = decided.when(Tick(), at(5_001)).then(SeamlessBetRefused, SeamlessRollbackDecided)
    assert data_of(then.decision, SeamlessBetRefused)[0].code == "WALLET_UNAVAILABLE"
    then.when(Tick(), at(9_000)).then()  # once


def test_a_bet_answered_ok_after_its_deadline_is_rolled_back_all_the_same():
    bet, decided = a_bet_decided()
    decided.when(answer(bet), at(5_001)).then(SeamlessAnswerRecorded, SeamlessBetRefused, SeamlessRollbackDecided)


def test_an_answer_after_the_rollback_is_recorded_and_changes_nothing():
    bet, decided = a_bet_decided()
    rolling = decided.when(Tick(), at(6_000))
    rollback = rolling.decision.events[1]
    rolling.when(answer(bet), at(6_100)).then(SeamlessAnswerRecorded)
    assert rolling.state.rounds[str(wager_id(1))].phase is Phase.ROLLING_BACK
    rolling.when(answer(rollback), at(6_200)).then(SeamlessAnswerRecorded, SeamlessRolledBack)
    rolling.when(answer(bet, Status.INSUFFICIENT_FUNDS), at(6_300)).then_repeated()  # the bet's one attempt answered
    assert rolling.state.rounds[str(wager_id(1))].phase is Phase.ROLLED_BACK


def test_a_repeated_answer_is_one_answer():
    bet, decided = a_bet_decided()
    decided.when(answer(bet), at(40)).then(SeamlessAnswerRecorded, SeamlessBetAccepted)
    again = decided.when(answer(bet), at(41)).then()
    assert again.decision.repeats == 1
    other = decided.when(no_answer(bet), at(42)).then()  # another outcome of the same attempt: still the one answer
    assert other.decision.repeats == 1


def test_a_wager_repeated_is_a_repeat_and_its_id_with_other_content_a_conflict():
    bet, decided = a_bet_decided()
    assert decided.when(debit(1), at(10)).then().decision.repeats == 1
    decided.when(debit(1, stake_minor=200), at(20)).then().then_dead_letters("DUPLICATE_CONFLICT")
