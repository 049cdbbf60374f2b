"""Player protection: deposit and loss limits per day/week/month (decreases at once, increases after 24 h),
exclusion."""

from __future__ import annotations

from datetime import timedelta

from shared.events.wallet import LimitSet
from tests.support.wallet import T0, Wallet, code


def test_a_deposit_over_the_daily_limit_is_refused_and_the_limit_resets_at_midnight_utc():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 100)
    assert code(wallet.deposit(2, 60)) is None
    assert code(wallet.deposit(3, 41)) == "LIMIT_EXCEEDED"
    assert code(wallet.deposit(4, 40)) is None
    wallet.now = T0.replace(hour=23, minute=59, second=59)
    assert code(wallet.deposit(5, 1)) == "LIMIT_EXCEEDED"
    wallet.later(seconds=1)
    assert code(wallet.deposit(6, 100)) is None
    assert wallet.balance() == 200


def test_the_weekly_limit_spans_days_and_resets_on_monday():
    wallet = Wallet()  # T0 is a Monday
    wallet.set_limit(1, "deposit", "week", 100)
    wallet.deposit(2, 70)
    wallet.later(days=6)  # Sunday, same ISO week
    assert code(wallet.deposit(3, 31)) == "LIMIT_EXCEEDED"
    wallet.later(days=1)  # next Monday
    assert code(wallet.deposit(4, 100)) is None


def test_the_monthly_limit_resets_on_the_first_of_the_month():
    wallet = Wallet()  # 30 November
    wallet.set_limit(1, "deposit", "month", 50)
    wallet.deposit(2, 50)
    assert code(wallet.deposit(3, 1)) == "LIMIT_EXCEEDED"
    wallet.later(days=1)  # 1 December
    assert code(wallet.deposit(4, 50)) is None


def test_a_limit_decrease_applies_at_once():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 1_000)
    event = wallet.set_limit(2, "deposit", "day", 10)
    assert event.data.effective_at == wallet.now
    assert code(wallet.deposit(3, 11)) == "LIMIT_EXCEEDED"


def test_a_limit_increase_applies_only_after_24_hours():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 10)
    event = wallet.set_limit(2, "deposit", "day", 1_000)
    assert isinstance(event.data, LimitSet)
    assert event.data.effective_at == wallet.now + timedelta(hours=24)
    wallet.later(hours=23, minutes=59)
    assert code(wallet.deposit(3, 11)) == "LIMIT_EXCEEDED"
    wallet.later(minutes=1)
    assert code(wallet.deposit(4, 11)) is None


def test_removing_a_limit_is_an_increase_and_waits_24_hours():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 10)
    wallet.set_limit(2, "deposit", "day", None)
    assert code(wallet.deposit(3, 11)) == "LIMIT_EXCEEDED"
    wallet.later(hours=24)
    assert code(wallet.deposit(4, 10_000)) is None


def test_a_decrease_cancels_a_pending_increase():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 10)
    wallet.set_limit(2, "deposit", "day", 1_000)
    wallet.set_limit(3, "deposit", "day", 5)
    wallet.later(hours=25)
    assert code(wallet.deposit(4, 6)) == "LIMIT_EXCEEDED"


def test_the_loss_limit_counts_wagers_net_of_wins_and_refunds():
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.set_limit(2, "loss", "day", 100)
    wallet.debit(3, 80)
    assert code(wallet.debit(4, 21)) == "LIMIT_EXCEEDED"
    wallet.settle(5, wager=3, house_win_minor=30)  # net loss 50
    assert code(wallet.debit(6, 50)) is None
    wallet.refund(7, wager=6)  # net loss back to 50
    assert code(wallet.debit(8, 51)) == "LIMIT_EXCEEDED"
    assert code(wallet.debit(9, 50)) is None


def test_limits_are_per_currency():
    wallet = Wallet()
    wallet.set_limit(1, "deposit", "day", 10, currency="DKK")
    assert code(wallet.deposit(2, 500, "EUR")) is None
    assert code(wallet.deposit(3, 11, "DKK")) == "LIMIT_EXCEEDED"


def test_a_negative_limit_is_invalid():
    assert code(Wallet().set_limit(1, "loss", "week", -1)) == "INVALID_AMOUNT"


def test_a_self_excluded_player_cannot_wager_or_deposit_but_can_withdraw_and_close_open_wagers():
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.debit(2, 100)
    wallet.self_exclude(3, until=None)
    assert code(wallet.debit(4, 10)) == "SELF_EXCLUDED"
    assert code(wallet.deposit(5, 10)) == "SELF_EXCLUDED"
    assert code(wallet.settle(6, wager=2, house_win_minor=20)) is None
    assert code(wallet.withdraw(7, 920)) is None
    assert wallet.balance() == 0


def test_a_self_exclusion_ends_at_its_until_and_cannot_be_shortened():
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.self_exclude(2, until=T0 + timedelta(days=7))
    wallet.self_exclude(3, until=T0 + timedelta(days=1))
    wallet.later(days=6, hours=23)
    assert code(wallet.debit(4, 10)) == "SELF_EXCLUDED"
    wallet.later(hours=1)
    assert code(wallet.debit(5, 10)) is None


def test_a_self_exclusion_ending_in_the_past_is_an_invalid_request():
    wallet = Wallet()
    assert code(wallet.self_exclude(1, until=T0 - timedelta(seconds=1))) == "INVALID_REQUEST"
    assert wallet.state.player.excluded_until_ms is None
