"""A wager that strands the player's sub-cent remainder, in seamless mode: the round's one win call credits it rounded
up to a minor unit (the operator's wallet keeps no remainder, and a round has no other money call), a restored book
owes the same amount, and a wager that claims to strand no remainder is refused as the ledger refuses it."""

from __future__ import annotations

from shared.events.seamless import SeamlessAnswerRecorded, SeamlessBetAccepted, SeamlessBetDecided, SeamlessWinDecided

from services.seamless_saga.core.calls import call_of
from tests.support.seamless_saga import SAGA, T0, answer, at, debit, place, settle, wager_id

HALF = 500_000


def stranding(command, before_micro: int = HALF):
    """`command` (a DebitWager or PlaceWager) stranding the player's `before_micro`."""
    stranded = command.data.model_copy(update={"remainder_before_micro": before_micro, "remainder_stranded": True})
    return command.model_copy(update={"data": stranded})


def test_a_debit_that_strands_a_remainder_has_it_credited_rounded_up_in_the_rounds_one_win():
    given = SAGA.given()
    bet = given.when(stranding(debit(1)), T0).then(SeamlessBetDecided).decision.events[0]
    assert bet.data.remainder_stranded_micro == HALF
    given.when(answer(bet), at(30)).then(SeamlessAnswerRecorded, SeamlessBetAccepted)
    win = given.when(settle(1, 250), at(100)).then(SeamlessWinDecided).decision.events[0]
    assert (win.data.remainder_stranded_micro, win.data.remainder_credit_minor) == (HALF, 1)
    assert (win.data.house_win_minor, win.data.jackpot_win_minor, win.data.amount_minor) == (250, 0, 251)
    round_ = given.state.rounds[str(wager_id(1))]
    assert call_of(round_, round_.open_call).amount_minor == 251
    restored = SAGA.given(bet).state  # a book folded from the topic owes the same credit
    assert restored.rounds[str(wager_id(1))].remainder_credit_minor == 1


def test_a_placed_wager_that_strands_a_remainder_credits_it_in_the_win_decided_with_its_bet():
    given = SAGA.given()
    bet = given.when(stranding(place(1, 20, 0), 1), T0).decision.events[0]
    then = given.when(answer(bet), at(30)).then(SeamlessAnswerRecorded, SeamlessBetAccepted, SeamlessWinDecided)
    win = then.decision.events[-1].data
    assert (win.amount_minor, win.remainder_credit_minor) == (1, 1)  # a losing spin's win is the credit alone


def test_a_wager_without_a_stranded_remainder_owes_no_credit():
    given = SAGA.given()
    bet = given.when(debit(1), T0).decision.events[0]
    given.when(answer(bet), at(30))
    win = given.when(settle(1, 250), at(100)).decision.events[0].data
    assert (win.amount_minor, win.remainder_stranded_micro, win.remainder_credit_minor) == (250, None, None)


def test_a_wager_that_strands_no_remainder_is_refused():
    SAGA.given().when(stranding(debit(1), 0), T0).then().then_dead_letters("REMAINDER_MISMATCH")
