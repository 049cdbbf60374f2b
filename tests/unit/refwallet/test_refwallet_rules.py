"""The reference wallet's rules, without a database: a transaction id is spent once, a repeat is the first answer, a
rollback undoes a bet once, and nothing after a rollback moves money."""

from __future__ import annotations

import uuid

from refwallet.rules import Entry, Player, decide
from seamless.port import BetCall, RollbackCall, Status, WinCall

PLAYER = Player("p-1", "EUR", 1_000)
BET_ID = uuid.uuid4()


def bet(amount_minor: int = 100, **changes) -> BetCall:
    fields = dict(
        request_id=BET_ID,
        transaction_id=BET_ID,
        player_id="p-1",
        currency="EUR",
        amount_minor=amount_minor,
        round_id="r-1",
        game="g",
    )
    return BetCall(**(fields | changes))


def win(amount_minor: int = 40) -> WinCall:
    tid = uuid.uuid4()
    return WinCall(
        request_id=tid,
        transaction_id=tid,
        bet_transaction_id=BET_ID,
        player_id="p-1",
        currency="EUR",
        amount_minor=amount_minor,
        round_id="r-1",
        game="g",
    )


def rollback() -> RollbackCall:
    tid = uuid.uuid4()
    return RollbackCall(
        request_id=tid, transaction_id=tid, bet_transaction_id=BET_ID, player_id="p-1", round_id="r-1", game="g"
    )


def placed(**changes) -> Entry:
    return (
        Entry(BET_ID, "bet", "p-1", 100, "r-1", Status.OK)
        if not changes
        else Entry(**(vars(Entry(BET_ID, "bet", "p-1", 100, "r-1", Status.OK)) | changes))
    )


def test_a_bet_within_the_balance_debits_the_stake_and_records_it():
    decision = decide(bet(), PLAYER, None, None, False)
    assert (decision.status, decision.delta_minor) == (Status.OK, -100)
    assert decision.record == placed()


def test_a_repeat_of_a_recorded_bet_gets_its_status_and_moves_nothing():
    decision = decide(bet(request_id=uuid.uuid4()), PLAYER, placed(), None, False)
    assert (decision.status, decision.delta_minor, decision.record) == (Status.OK, 0, None)


def test_a_transaction_id_reused_for_another_amount_is_a_conflict():
    decision = decide(bet(amount_minor=999), PLAYER, placed(), None, False)
    assert (decision.status, decision.delta_minor) == (Status.DUPLICATE_CONFLICT, 0)


def test_a_bet_over_the_balance_is_refused_and_recorded_without_money():
    decision = decide(bet(amount_minor=1_001), PLAYER, None, None, False)
    assert (decision.status, decision.delta_minor) == (Status.INSUFFICIENT_FUNDS, 0)
    assert decision.record.status is Status.INSUFFICIENT_FUNDS


def test_the_operators_own_refusals():
    assert decide(bet(), Player("p-1", "EUR", 1_000, disabled=True), None, None, False).status is Status.PLAYER_DISABLED
    assert (
        decide(bet(), Player("p-1", "EUR", 1_000, bet_limit_minor=50), None, None, False).status is Status.LIMIT_REACHED
    )
    assert (
        decide(bet(), Player("p-1", "EUR", 1_000, session_token="t"), None, None, False).status is Status.SESSION_GONE
    )
    assert decide(bet(), Player("p-1", "DKK", 1_000), None, None, False).status is Status.CURRENCY_MISMATCH
    assert decide(bet(), None, None, None, False).status is Status.SESSION_GONE


def test_a_win_credits_against_a_placed_bet_and_marks_it_won():
    decision = decide(win(), PLAYER, None, placed(), False)
    assert (decision.status, decision.delta_minor, decision.wins) == (Status.OK, 40, BET_ID)


def test_a_win_for_an_unknown_or_refused_bet_moves_nothing():
    assert decide(win(), PLAYER, None, None, False).status is Status.UNKNOWN_TRANSACTION
    refused = placed(status=Status.INSUFFICIENT_FUNDS)
    assert decide(win(), PLAYER, None, refused, False).delta_minor == 0


def test_a_rollback_returns_the_stake_once():
    decision = decide(rollback(), PLAYER, None, placed(), False)
    assert (decision.status, decision.delta_minor, decision.rolls_back) == (Status.OK, 100, BET_ID)
    again = decide(rollback(), PLAYER, None, placed(rolled_back=True), False)
    assert (again.status, again.delta_minor) == (Status.ALREADY_ROLLED_BACK, 0)


def test_nothing_after_a_rollback_moves_money():
    assert decide(win(), PLAYER, None, placed(rolled_back=True), False).delta_minor == 0
    late = decide(bet(), PLAYER, None, None, True)
    assert (late.status, late.delta_minor) == (Status.ALREADY_ROLLED_BACK, 0)


def test_a_rollback_of_an_unknown_bet_is_recorded_so_the_bet_never_lands():
    decision = decide(rollback(), PLAYER, None, None, False)
    assert (decision.status, decision.delta_minor) == (Status.UNKNOWN_TRANSACTION, 0)
    assert decision.record.bet_transaction_id == BET_ID


def test_a_settled_round_is_not_rolled_back():
    assert decide(rollback(), PLAYER, None, placed(won=True), False).delta_minor == 0
