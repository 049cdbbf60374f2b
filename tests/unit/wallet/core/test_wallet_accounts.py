"""Deposits, withdrawals and debits: accounts per currency, positive amounts, never below zero, balanced postings."""

from __future__ import annotations

import pytest

from shared.events.wallet import CASHIER, HOUSE, Deposited, WagerDebited, postings_balanced
from tests.support.wallet import PLAYER, Wallet, code, tx


def test_the_first_deposit_opens_the_account_in_its_currency():
    wallet = Wallet()
    assert wallet.balance("DKK") is None
    event = wallet.deposit(1, 500, "DKK")
    assert isinstance(event.data, Deposited)
    assert wallet.balance("DKK") == 500
    assert wallet.balance("EUR") is None


def test_a_deposit_posts_from_the_cashier_to_the_player_in_micro_units():
    event = Wallet().deposit(1, 250)
    assert {(p.account, p.amount_micro) for p in event.data.postings} == {
        (CASHIER, -250_000_000),
        (f"player:{PLAYER}", 250_000_000),
    }
    assert postings_balanced(event.data.postings)
    assert event.data.balance_after_minor == 250


@pytest.mark.parametrize("amount_minor", [0, -1, 10**12 + 1])
def test_an_amount_that_is_not_positive_or_is_implausibly_large_is_invalid(amount_minor):
    wallet = Wallet()
    assert code(wallet.deposit(1, amount_minor)) == "INVALID_AMOUNT"
    assert wallet.balance() is None


def test_an_unknown_currency_is_a_currency_mismatch():
    wallet = Wallet()
    assert code(wallet.deposit(1, 100, "USD")) == "CURRENCY_MISMATCH"
    assert wallet.state.player.balances_minor == {}


def test_a_withdrawal_above_the_balance_is_refused_and_leaves_the_balance_unchanged():
    wallet = Wallet()
    wallet.deposit(1, 100)
    rejection = wallet.withdraw(2, 101)
    assert code(rejection) == "INSUFFICIENT_FUNDS"
    assert rejection.data.balance_after_minor == 100
    assert wallet.balance() == 100
    assert wallet.withdraw(3, 100).data.balance_after_minor == 0


def test_a_withdrawal_without_an_account_in_the_currency_is_account_not_found():
    wallet = Wallet()
    wallet.deposit(1, 100, "EUR")
    assert code(wallet.withdraw(2, 1, "DKK")) == "ACCOUNT_NOT_FOUND"


def test_a_debit_never_takes_the_balance_below_zero_and_its_rejection_names_the_wager():
    wallet = Wallet()
    wallet.deposit(1, 100)
    rejection = wallet.debit(2, 101)
    assert code(rejection) == "INSUFFICIENT_FUNDS"
    assert rejection.data.wager_id == tx(2)
    assert wallet.balance() == 100
    assert wallet.state.player.open_wagers == {}


def test_a_debit_moves_the_stake_from_the_player_to_the_house_and_opens_the_wager():
    wallet = Wallet()
    wallet.deposit(1, 100)
    event = wallet.debit(2, 100)
    assert isinstance(event.data, WagerDebited)
    assert {(p.account, p.amount_micro) for p in event.data.postings} == {
        (f"player:{PLAYER}", -100_000_000),
        (HOUSE, 100_000_000),
    }
    assert event.data.balance_after_minor == 0
    assert str(tx(2)) in wallet.state.player.open_wagers


def test_a_debit_in_a_currency_without_an_account_is_account_not_found():
    wallet = Wallet()
    wallet.deposit(1, 100, "EUR")
    assert code(wallet.debit(2, 10, "DKK")) == "ACCOUNT_NOT_FOUND"


def test_event_ids_are_derived_from_the_transaction_so_re_processing_emits_the_same_fact():
    first, second = Wallet(), Wallet()
    event_a, event_b = first.deposit(7, 100), second.deposit(7, 100)
    assert event_a.id == event_b.id
    assert event_a.data == event_b.data
