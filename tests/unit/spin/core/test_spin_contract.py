"""The spin core as specifications: given the book's facts, when a message is decided, then what it writes."""

from __future__ import annotations

from types import SimpleNamespace

from shared.events import broker_time, decode, encode, envelope
from shared.events.jackpot import Contribute
from shared.events.spin import SeedDrawn, SpinAccepted, SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import DebitWager, PlaceWager, SettleWager
from services.spin.core.requests import Request
from tests.support.gwt import data_of
from tests.support.spin import (
    NOW_MS,
    debit_refused_for,
    debited_for,
    make_context,
    request_bytes,
    seed_for,
    settled_for,
    spin_core,
)

NOW = broker_time(NOW_MS)


def _request(player: str = "p-1", **fields) -> Request:
    _, raw = request_bytes(player=player, **fields)
    return Request(decode(raw, expect_kind="command"), player)


def test_a_valid_request_is_journaled_as_accepted_with_its_seed_and_its_wager_placed():
    spin = spin_core(make_context()).given().when(_request(), NOW)
    spin.then(SeedDrawn).then_commands(PlaceWager).then_answers()  # the acceptance travels with the seed


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


def test_given_an_accepted_spin_its_debit_writes_nothing_and_its_settlement_answers_and_contributes():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    (place,) = asked.decision.commands
    asked.when(debited_for(_as_out(place)), NOW).then().then_commands().then_answers()
    answered = asked.when(settled_for(_as_out(place), 4321), NOW)
    answered.then().then_commands(Contribute).then_answers(SpinSettled)
    assert answered.decision.answers[0].data.balance_after_minor == 4321


def test_given_an_accepted_spin_a_refused_wager_is_voided_and_answered_with_the_wallets_code():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    (place,) = asked.decision.commands
    refused = asked.when(debit_refused_for(_as_out(place), "LIMIT_EXCEEDED"), NOW)
    refused.then(SpinVoided).then_commands().then_answers(SpinRejected)
    assert refused.decision.answers[0].data.code == "LIMIT_EXCEEDED"


def test_given_the_journal_of_an_accepted_spin_a_repeat_asks_for_the_same_wager_again():
    ctx, request = make_context(), _request()
    journal = spin_core(ctx).given().when(request, NOW).decision.events
    spin_core(ctx).given(*journal).when(request, NOW).then().then_commands(PlaceWager)


def _as_out(command) -> SimpleNamespace:
    """The shape the wallet-answer builders read: an encoded command."""
    return SimpleNamespace(value=encode(command))


def _six_hop_journal(request: Request) -> tuple:
    """What the six-hop flow journaled for a request: SpinAccepted, then (after its debit) a plain SeedDrawn."""
    data, seed = request.request.data, seed_for(lambda word: word % 7 != 0, "rising-joker")
    wager = dict(request_id=data.request_id, player_id=data.player_id, game=data.game, stake_minor=data.stake_minor)
    wager["currency"] = data.currency
    accepted = SpinAccepted(**wager, request_event_id=request.request.id, requested_at=NOW, accepted_at=NOW)
    drawn = SeedDrawn(**wager, model_version="fake-slot-v1", seed=seed.hex(), state_before={}, drawn_at=NOW)
    return tuple(envelope(fact, source="reelstream/spin", time=NOW) for fact in (accepted, drawn))


def test_given_a_spin_an_earlier_version_seeded_after_its_debit_a_repeat_asks_for_the_debit_and_it_settles_as_then():
    ctx, request = make_context(), _request()
    given = spin_core(ctx).given(*_six_hop_journal(request))
    repeat = given.when(request, NOW).then().then_commands(DebitWager)  # never a PlaceWager under a debited wager's id
    played = given.when(debited_for(_as_out(repeat.decision.commands[0])), NOW).then_commands(Contribute, SettleWager)
    answered = given.when(settled_for(_as_out(played.decision.commands[1]), 10), NOW)
    answered.then().then_commands().then_answers(SpinSettled)  # its contribution went out with its settlement
