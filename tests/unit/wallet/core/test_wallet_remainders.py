"""The remainder as money: the wallet records each player's outstanding sub-cent remainder from the settlements, and
credits one that can no longer be completed (a stake that cannot, self-exclusion, closure), rounded up to one cent, in
the transaction of the command that strands it (docs/wallet.md, "Remainders")."""

from __future__ import annotations

from datetime import timedelta

from shared.events import encode
from shared.events.wallet import (
    AccountClosed,
    CloseAccount,
    CommandRejected,
    RefundWager,
    RemainderCredited,
    SelfExclude,
    SelfExcluded,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
    postings_balanced,
)
from services.wallet.core.remainders import credit_id
from tests.support.wallet import PLAYER, Wallet, tx

HALF = 500_000


def with_half_cent() -> Wallet:
    """A player who won a spin that left ½ cent outstanding (wager tx(2))."""
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.place(2, 10, house_win_minor=2, remainder={"remainder_before_micro": 0, "remainder_after_micro": HALF})
    return wallet


def remainder(wallet: Wallet) -> int:
    return wallet.state.player.remainders["rising-joker"].micro


def test_a_settlement_records_the_remainder_it_leaves_and_a_game_that_keeps_none_records_nothing():
    wallet = with_half_cent()
    assert remainder(wallet) == HALF
    assert wallet.state.player.remainders["rising-joker"].wager_id == str(tx(2))
    plain = Wallet()
    plain.deposit(1, 1_000)
    plain.place(2, 10, house_win_minor=2)
    assert plain.state.player.remainders == {}


def test_a_stake_that_strands_the_remainder_credits_one_cent_in_the_wagers_own_transaction():
    wallet = with_half_cent()
    stranded = {"remainder_before_micro": HALF, "remainder_stranded": True, "remainder_after_micro": 0}
    debited, credited, settled = wallet.place(3, 20, remainder=stranded)
    assert isinstance(debited.data, WagerDebited) and isinstance(settled.data, WagerSettled)
    data = credited.data
    assert isinstance(data, RemainderCredited)
    assert (data.reason, data.remainder_micro, data.amount_minor, data.wager_id) == ("stake-change", HALF, 1, tx(2))
    assert data.transaction_id == credit_id(tx(3), "rising-joker") and postings_balanced(data.postings)
    assert (debited.data.balance_after_minor, data.balance_after_minor) == (992 - 20, 992 - 20 + 1)
    assert settled.data.balance_after_minor == wallet.balance() == 973
    assert remainder(wallet) == 0


def test_a_repeat_of_a_stranding_wager_re_emits_its_three_events_byte_for_byte():
    wallet = with_half_cent()
    stranded = {"remainder_before_micro": HALF, "remainder_stranded": True, "remainder_after_micro": 0}
    first = wallet.place(3, 20, remainder=stranded)
    again = wallet.later(seconds=2).place(3, 20, remainder=stranded)
    assert [encode(event) for event in again] == [encode(event) for event in first]
    assert wallet.balance() == 973


def test_a_refused_stranding_wager_credits_nothing_and_the_remainder_stays():
    wallet = with_half_cent()
    wallet.set_limit(3, "loss", "day", 15)
    stranded = {"remainder_before_micro": HALF, "remainder_stranded": True, "remainder_after_micro": 0}
    (refused,) = wallet.place(4, 20, remainder=stranded)
    assert refused.data.code == "LIMIT_EXCEEDED" and remainder(wallet) == HALF and wallet.balance() == 992


def test_a_wager_whose_remainder_differs_from_the_wallets_record_is_refused():
    wallet = with_half_cent()
    (refused,) = wallet.place(3, 10, remainder={"remainder_before_micro": 0, "remainder_after_micro": 0})
    assert refused.data.code == "REMAINDER_MISMATCH" and "500000 micro, not 0" in refused.data.message
    (nothing,) = wallet.place(4, 10, remainder={"remainder_before_micro": 0, "remainder_stranded": True})
    assert nothing.data.code == "REMAINDER_MISMATCH"


def test_self_exclusion_credits_every_outstanding_remainder_with_the_exclusion():
    wallet = with_half_cent()
    excluded, credited = wallet.send_all(_exclude(wallet, 3))
    assert isinstance(excluded.data, SelfExcluded)
    assert (credited.data.reason, credited.data.amount_minor, credited.data.wager_id) == ("self-exclusion", 1, tx(2))
    assert wallet.balance() == 993 and remainder(wallet) == 0
    (again,) = wallet.send_all(_exclude(wallet, 4))  # nothing outstanding: nothing more
    assert isinstance(again.data, SelfExcluded)


def test_closure_credits_the_remainder_then_refuses_wagers_and_deposits_but_not_withdrawals():
    wallet = with_half_cent()
    closed, credited = wallet.send_all(CloseAccount(transaction_id=tx(3), player_id=PLAYER))
    assert isinstance(closed.data, AccountClosed) and credited.data.reason == "closure"
    assert wallet.balance() == 993
    (wager,) = wallet.place(4, 10, remainder={"remainder_before_micro": 0, "remainder_after_micro": 0})
    assert wager.data.code == "ACCOUNT_CLOSED"
    assert wallet.deposit(5, 10).data.code == "ACCOUNT_CLOSED"
    assert wallet.withdraw(6, 993).data.balance_after_minor == 0


def test_a_remainder_an_open_wager_carries_is_credited_when_that_wager_closes_not_twice():
    wallet = with_half_cent()
    wallet.send(wallet.debit_command(3, 10, remainder_before_micro=HALF))  # a spin with a pool claim, in flight
    (excluded,) = wallet.send_all(_exclude(wallet, 4))  # the open wager carries the ½ cent: no credit yet
    assert isinstance(excluded.data, SelfExcluded) and wallet.balance() == 982
    settled, credited = wallet.settle(5, 3, house_win_minor=1, remainder_after_micro=HALF, every=True)
    assert isinstance(settled.data, WagerSettled)
    assert (credited.data.reason, credited.data.wager_id, credited.data.amount_minor) == ("self-exclusion", tx(3), 1)
    assert wallet.balance() == 984 and remainder(wallet) == 0


def test_a_refund_while_closed_credits_the_remainder_the_refunded_wager_carried():
    wallet = with_half_cent()
    wallet.send(wallet.debit_command(3, 10, remainder_before_micro=HALF))
    closed, *none = wallet.send_all(CloseAccount(transaction_id=tx(4), player_id=PLAYER))
    assert none == []
    refunded, credited = wallet.send_all(_refund(5, 3))
    assert isinstance(refunded.data, WagerRefunded) and credited.data.reason == "closure"
    assert wallet.balance() == 993


def test_a_wager_carrying_a_remainder_the_wallet_already_credited_is_refused():
    """The race a short self-exclusion opens: a spin drew its outcome with the ½ cent, the exclusion credited it, and
    the exclusion is over when the wager arrives: the wager is refused, so the ½ cent is never paid twice."""
    wallet = with_half_cent()
    wallet.send_all(_exclude(wallet, 3, minutes=1))
    (refused,) = wallet.later(minutes=2).place(4, 10, remainder={"remainder_before_micro": HALF})
    assert isinstance(refused.data, CommandRejected) and refused.data.code == "REMAINDER_MISMATCH"
    assert wallet.balance() == 993


def _exclude(wallet: Wallet, n: int, minutes: int = 60) -> SelfExclude:
    return SelfExclude(transaction_id=tx(n), player_id=PLAYER, until=wallet.now + timedelta(minutes=minutes))


def _refund(n: int, wager: int) -> RefundWager:
    return RefundWager(transaction_id=tx(n), player_id=PLAYER, wager_id=tx(wager), currency="EUR", reason="test")
