"""The spin core as specifications: given the book's facts, when a message is decided, then what it writes."""

from __future__ import annotations

from types import SimpleNamespace

from shared.events import broker_time, decode, encode
from shared.events.jackpot import Contribute
from shared.events.spin import SeedDrawn, SpinAccepted, SpinRejected, SpinSettled
from shared.events.wallet import DebitWager, SettleWager
from services.spin.core.requests import Request
from tests.support.gwt import data_of
from tests.support.spin import NOW_MS, debited_for, make_context, request_bytes, settled_for, spin_core

NOW = broker_time(NOW_MS)


def _request(player: str = "p-1", **fields) -> Request:
    _, raw = request_bytes(player=player, **fields)
    return Request(decode(raw, expect_kind="command"), player)


def test_a_valid_request_is_journaled_as_accepted_and_its_stake_debited():
    spin = spin_core(make_context()).given().when(_request(), NOW)
    spin.then(SpinAccepted).then_commands(DebitWager).then_answers()


def test_a_request_with_a_bad_token_is_answered_unauthenticated_and_nothing_is_journaled():
    spin = spin_core(make_context()).given().when(_request(token="forged"), NOW)
    spin.then().then_commands()
    (rejected,) = data_of(spin.decision, SpinRejected)
    assert rejected.code == "UNAUTHENTICATED"


def test_a_request_keyed_elsewhere_is_answered_on_its_key_partition_only():
    request = Request(_request().request, "p-1", misplaced="belongs on partition 3")
    spin = spin_core(make_context()).given().when(request, NOW)
    spin.then().then_answers()
    (rerouted,) = spin.decision.rerouted
    assert rerouted.data.code == "WRONG_PARTITION"


def test_given_an_accepted_spin_the_debit_draws_the_seed_then_contributes_and_settles():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    (debit,) = asked.decision.commands
    played = asked.when(debited_for(_as_out(debit)), NOW)
    played.then(SeedDrawn).then_commands(Contribute, SettleWager).then_answers()


def test_given_a_settled_wager_the_spin_is_answered_once_with_the_balance_after():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    played = asked.when(debited_for(_as_out(asked.decision.commands[0])), NOW)
    settle = [c for c in played.decision.commands if isinstance(c.data, SettleWager)][0]
    answered = played.when(settled_for(_as_out(settle), 4321), NOW)
    answered.then().then_commands().then_answers(SpinSettled)
    assert answered.decision.answers[0].data.balance_after_minor == 4321


def test_given_the_journal_of_an_accepted_spin_a_repeat_asks_for_the_debit_again():
    ctx, request = make_context(), _request()
    journal = spin_core(ctx).given().when(request, NOW).decision.events
    spin_core(ctx).given(*journal).when(request, NOW).then().then_commands(DebitWager)


def _as_out(command) -> SimpleNamespace:
    """The shape the wallet-answer builders read: an encoded command."""
    return SimpleNamespace(value=encode(command))
