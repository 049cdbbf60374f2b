"""The wallet core as specifications: given the partition's events, when a command is decided, then its events."""

from __future__ import annotations

from shared.decision import Undecodable
from shared.events import DecodeError, broker_time, envelope
from shared.events.wallet import CommandRejected, Deposit, Deposited, WagerDebited, DebitWager

from tests.support.wallet import PLAYER, T0, WALLET, tx


def _command(data):
    return envelope(data, source="test", time=T0)


def _deposit(n: int, amount_minor: int):
    return _command(Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR"))


def _debit(n: int, amount_minor: int):
    return _command(
        DebitWager(
            transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR", game="rising-joker"
        )
    )


def test_a_first_deposit_is_deposited():
    WALLET.given().when(_deposit(1, 500), T0).then(Deposited)


def test_given_a_deposit_a_debit_within_the_balance_is_debited():
    opened = WALLET.given().when(_deposit(1, 500), T0)
    debited = opened.when(_debit(2, 200), T0).then(WagerDebited)
    assert debited.decision.events[0].data.balance_after_minor == 300


def test_given_a_deposit_a_debit_beyond_the_balance_is_refused_with_its_code():
    opened = WALLET.given().when(_deposit(1, 100), T0)
    refused = opened.when(_debit(2, 200), T0).then(CommandRejected)
    assert refused.decision.events[0].data.code == "INSUFFICIENT_FUNDS"


def test_given_the_events_read_back_a_repeat_names_the_original_event_again_and_changes_nothing():
    first = WALLET.given().when(_deposit(1, 500), T0).decision.events[0]
    given = WALLET.given(first)
    before = given.state.state_of(PLAYER)
    again = given.when(_deposit(1, 500), T0).then_repeated(first)
    assert again.decision.repeats == 1
    assert again.state.state_of(PLAYER) == before


def test_an_undecodable_command_naming_a_player_is_rejected_not_dead_lettered():
    error = DecodeError("data.amount_minor", "not an integer", {"type": Deposit.TYPE, "data": {"player_id": PLAYER}})
    rejected = WALLET.given().when(Undecodable(error, PLAYER, ("wallet.commands", 0, 7)), broker_time(0))
    rejected.then(CommandRejected).then_dead_letters()
    assert rejected.decision.events[0].data.code == "INVALID_REQUEST"


def test_an_undecodable_command_naming_nobody_is_dead_lettered_with_its_reason():
    error = DecodeError("$", "not JSON")
    WALLET.given().when(Undecodable(error, None, ("wallet.commands", 0, 8)), T0).then().then_dead_letters("UNDECODABLE")
