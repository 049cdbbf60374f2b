"""No saga left open: a debited wager's settlement or refund closes it however late it comes, or however its sender's
clock stands, and closes it once; the de-duplication of closing commands rests on the open wager, not on time.

Scenario: the spin dates its commands with the broker time of the record it read (a WagerDebited, a jackpot answer),
so a spin that lags behind its input, or a wallet.commands leader whose clock is ahead, makes a closing command look
older than the de-duplication window (or dated in the future) to the wallet.
"""

from __future__ import annotations

from datetime import timedelta

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import envelope
from shared.events.wallet import CommandRejected, DebitWager, Deposit, RefundWager, SettleWager, WagerRefunded
from shared.events.wallet import WagerSettled

from tests.support.wallet import PLAYER, T0, WALLET, tx

LATE = timedelta(milliseconds=DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)
AHEAD = timedelta(hours=1)


def _at(data, time):
    return envelope(data, source="test", time=time)


def _debited():
    """A player with 100 and an open wager of 10 (tx 2), debited at T0."""
    deposit = Deposit(transaction_id=tx(1), player_id=PLAYER, amount_minor=100, currency="EUR")
    debit = DebitWager(transaction_id=tx(2), player_id=PLAYER, amount_minor=10, currency="EUR", game="rising-joker")
    return WALLET.given().when(_at(deposit, T0), T0).when(_at(debit, T0), T0)


def _settle(n: int = 3) -> SettleWager:
    return SettleWager(
        transaction_id=tx(n),
        player_id=PLAYER,
        wager_id=tx(2),
        currency="EUR",
        house_win_minor=4,
        jackpot_win_minor=0,
        breakage_micro=0,
        contribution_micro=0,
        network_id="net-1",
    )


def _refund(n: int = 4) -> RefundWager:
    return RefundWager(transaction_id=tx(n), player_id=PLAYER, wager_id=tx(2), currency="EUR", reason="test")


def test_a_settlement_dated_at_the_debit_and_decided_past_the_window_settles_the_wager():
    settled = _debited().when(_at(_settle(), T0), T0 + LATE).then(WagerSettled)
    assert settled.decision.events[0].data.balance_after_minor == 100 - 10 + 4
    assert settled.state.state_of(PLAYER).player.open_wagers == {}


def test_a_refund_dated_at_the_debit_and_decided_past_the_window_refunds_the_wager():
    refunded = _debited().when(_at(_refund(), T0), T0 + LATE).then(WagerRefunded)
    assert refunded.decision.events[0].data.balance_after_minor == 100


def test_a_settlement_dated_an_hour_ahead_of_the_wallet_settles_the_wager():
    _debited().when(_at(_settle(), T0 + AHEAD), T0).then(WagerSettled)


def test_a_late_settlement_of_a_closed_wager_closes_nothing_twice():
    settled = _debited().when(_at(_settle(), T0), T0)
    again = settled.when(_at(_settle(5), T0), T0 + LATE).then(CommandRejected)
    assert again.decision.events[0].data.code in ("WAGER_ALREADY_CLOSED", "WAGER_NOT_FOUND")
    refund = again.when(_at(_refund(), T0), T0 + LATE + LATE).then(CommandRejected)
    assert refund.state.state_of(PLAYER).player.balances_minor["EUR"] == 94


def test_a_debit_older_than_the_window_is_still_refused_by_age_and_takes_nothing():
    deposit = Deposit(transaction_id=tx(1), player_id=PLAYER, amount_minor=100, currency="EUR")
    debit = DebitWager(transaction_id=tx(2), player_id=PLAYER, amount_minor=10, currency="EUR", game="rising-joker")
    refused = WALLET.given().when(_at(deposit, T0), T0).when(_at(debit, T0), T0 + LATE).then(CommandRejected)
    assert refused.decision.events[0].data.code == "REQUEST_EXPIRED"
    assert refused.state.state_of(PLAYER).player.open_wagers == {}


def test_a_copy_of_an_open_wagers_debit_decided_past_the_window_takes_nothing_and_refuses_nothing():
    # Scenario: a claiming spin is in flight past the window (its jackpot answer not read yet) and the player repeats
    # the request: the spin sends its DebitWager again, dated at acceptance. A refusal would read to the spin as the
    # wager's own refusal (it voids the spin and answers it), and the debit would stay open for good.
    debit = DebitWager(transaction_id=tx(2), player_id=PLAYER, amount_minor=10, currency="EUR", game="rising-joker")
    again = _debited().when(_at(debit, T0), T0 + LATE).then()
    assert again.decision.repeats == 1
    player = again.state.state_of(PLAYER).player
    assert (list(player.open_wagers), player.balances_minor["EUR"]) == ([str(tx(2))], 90)


def test_another_debit_under_an_open_wagers_id_past_the_window_is_a_conflict_that_takes_nothing():
    other = DebitWager(transaction_id=tx(2), player_id=PLAYER, amount_minor=20, currency="EUR", game="rising-joker")
    conflict = _debited().when(_at(other, T0 + LATE), T0 + LATE).then(CommandRejected)
    assert conflict.decision.events[0].data.code == "DUPLICATE_CONFLICT"
    assert conflict.state.state_of(PLAYER).player.balances_minor["EUR"] == 90
