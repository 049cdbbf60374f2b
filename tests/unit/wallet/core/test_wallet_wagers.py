"""Wagers: every accepted wager ends in exactly one settlement or one refund; settlements carry every amount."""

from __future__ import annotations

from shared.events.wallet import HOUSE, WagerRefunded, WagerSettled, postings_balanced
from tests.support.wallet import PLAYER, Wallet, code


def a_wallet_with_an_open_wager(stake_minor: int = 100) -> Wallet:
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.debit(2, stake_minor)
    return wallet


def test_a_settlement_credits_the_win_and_moves_contribution_and_breakage_to_the_jackpot_liability():
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, house_win_minor=250, breakage_micro=400_000, contribution_micro=1_500_000)
    assert isinstance(event.data, WagerSettled)
    postings = {p.account: p.amount_micro for p in event.data.postings}
    assert postings == {f"player:{PLAYER}": 250_000_000, HOUSE: -251_900_000, "jackpot:net-1": 1_900_000}
    assert postings_balanced(event.data.postings)
    assert event.data.win_minor == 250
    assert event.data.balance_after_minor == wallet.balance() == 1_150
    assert wallet.state.player.open_wagers == {}


def test_a_jackpot_win_is_paid_from_the_jackpot_liability_in_the_same_settlement():
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, house_win_minor=10, jackpot_win_minor=5_000, contribution_micro=1_000_000)
    postings = {p.account: p.amount_micro for p in event.data.postings}
    assert postings["jackpot:net-1"] == 1_000_000 - 5_000_000_000
    assert postings[f"player:{PLAYER}"] == 5_010_000_000
    assert event.data.win_minor == 5_010
    assert wallet.balance() == 900 + 5_010


def test_a_settlement_of_zero_is_allowed():
    wallet = a_wallet_with_an_open_wager()
    assert code(wallet.settle(3, wager=2)) is None
    assert wallet.balance() == 900


def test_a_wager_is_settled_only_once():
    wallet = a_wallet_with_an_open_wager()
    wallet.settle(3, wager=2, house_win_minor=100)
    assert code(wallet.settle(4, wager=2, house_win_minor=100)) == "WAGER_ALREADY_CLOSED"
    assert wallet.balance() == 1_000


def test_a_refunded_wager_cannot_be_settled_and_a_settled_one_cannot_be_refunded():
    refunded = a_wallet_with_an_open_wager()
    refunded.refund(3, wager=2)
    assert code(refunded.settle(4, wager=2, house_win_minor=50)) == "WAGER_ALREADY_CLOSED"
    assert refunded.balance() == 1_000
    settled = a_wallet_with_an_open_wager()
    settled.settle(3, wager=2)
    assert code(settled.refund(4, wager=2)) == "WAGER_ALREADY_CLOSED"
    assert settled.balance() == 900


def test_a_refund_reverses_the_debit_exactly():
    wallet = a_wallet_with_an_open_wager(stake_minor=123)
    debit_postings = {p.account: p.amount_micro for p in wallet.emitted[-1].data.postings}
    event = wallet.refund(3, wager=2)
    assert isinstance(event.data, WagerRefunded)
    assert {p.account: p.amount_micro for p in event.data.postings} == {k: -v for k, v in debit_postings.items()}
    assert event.data.amount_minor == 123
    assert wallet.balance() == 1_000


def test_settling_a_wager_that_was_never_debited_is_wager_not_found():
    wallet = Wallet()
    wallet.deposit(1, 100)
    rejection = wallet.settle(3, wager=99, house_win_minor=5)
    assert code(rejection) == "WAGER_NOT_FOUND"
    assert wallet.balance() == 100


def test_settling_a_wager_whose_debit_was_refused_is_wager_not_found():
    wallet = Wallet()
    wallet.deposit(1, 10)
    wallet.debit(2, 100)
    assert code(wallet.settle(3, wager=2, house_win_minor=5)) == "WAGER_NOT_FOUND"


def test_settling_in_another_currency_than_the_wager_is_a_currency_mismatch():
    wallet = a_wallet_with_an_open_wager()
    wallet.deposit(5, 100, "DKK")
    assert code(wallet.settle(3, wager=2, currency="DKK", house_win_minor=5)) == "CURRENCY_MISMATCH"
    assert code(wallet.refund(4, wager=2, currency="DKK")) == "CURRENCY_MISMATCH"
    assert len(wallet.state.player.open_wagers) == 1


def test_negative_settlement_amounts_and_a_contribution_above_the_stake_are_invalid():
    wallet = a_wallet_with_an_open_wager(stake_minor=100)
    assert code(wallet.settle(3, wager=2, house_win_minor=-1)) == "INVALID_AMOUNT"
    assert code(wallet.settle(4, wager=2, breakage_micro=-1)) == "INVALID_AMOUNT"
    assert code(wallet.settle(5, wager=2, contribution_micro=100_000_001)) == "INVALID_AMOUNT"
    assert len(wallet.state.player.open_wagers) == 1
    assert code(wallet.settle(6, wager=2, contribution_micro=100_000_000)) is None


def test_a_repeated_settlement_returns_the_original_and_does_not_pay_twice():
    wallet = a_wallet_with_an_open_wager()
    first = wallet.settle(3, wager=2, house_win_minor=70)
    assert wallet.settle(3, wager=2, house_win_minor=70) == first
    assert wallet.balance() == 970
