"""The spin core as specifications: given the book's facts, when a message is decided, then what it writes."""

from __future__ import annotations

from shared.decision import Message
from shared.events import broker_time, envelope
from shared.events.jackpot import Contribute
from shared.events.spin import SeedDrawn, SpinAccepted, SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import DebitWager, PlaceWager, SettleWager
from tests.support.gwt import data_of
from tests.support.spin import (
    NOW_MS,
    debit_refused_for,
    debited_for,
    fact,
    make_context,
    request,
    request_bytes,
    seed_for,
    settled_for,
    spin_core,
)

NOW = broker_time(NOW_MS)


def _request(player: str = "p-1", **fields) -> Message:
    _, raw = request_bytes(player=player, **fields)
    return request(raw, player.encode())


def test_a_valid_request_is_journaled_as_accepted_with_its_seed_and_its_wager_placed():
    spin = spin_core(make_context()).given().when(_request(), NOW)
    spin.then(SeedDrawn).then_commands(PlaceWager).then_answers()  # the acceptance travels with the seed


def test_a_request_with_a_bad_token_is_answered_unauthenticated_and_nothing_is_journaled():
    spin = spin_core(make_context()).given().when(_request(token="forged"), NOW)
    spin.then().then_commands()
    (rejected,) = data_of(spin.decision, SpinRejected)
    assert rejected.code == "UNAUTHENTICATED"


def test_a_request_keyed_elsewhere_is_answered_on_its_key_partition_only():
    _, raw = request_bytes()
    misplaced = request(raw, b"p-1", partition=1, partitions=4)  # p-1 belongs on partition 0 of four
    assert misplaced.misplaced is not None
    spin = spin_core(make_context()).given().when(misplaced, NOW)
    spin.then().then_answers()
    (rerouted,) = spin.decision.rerouted
    assert rerouted.data.code == "WRONG_PARTITION"


def test_given_an_accepted_spin_its_debit_writes_nothing_and_its_settlement_answers_and_contributes():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    (place,) = asked.decision.commands
    asked.when(fact(debited_for(place)), NOW).then().then_commands().then_answers()
    answered = asked.when(fact(settled_for(place, 4321)), NOW)
    answered.then().then_commands(Contribute).then_answers(SpinSettled)
    assert answered.decision.answers[0].data.balance_after_minor == 4321


def test_given_an_accepted_spin_a_refused_wager_is_voided_and_answered_with_the_wallets_code():
    ctx = make_context()
    asked = spin_core(ctx).given().when(_request(), NOW)
    (place,) = asked.decision.commands
    refused = asked.when(fact(debit_refused_for(place, "LIMIT_EXCEEDED")), NOW)
    refused.then(SpinVoided).then_commands().then_answers(SpinRejected)
    assert refused.decision.answers[0].data.code == "LIMIT_EXCEEDED"


def test_given_the_journal_of_an_accepted_spin_a_repeat_asks_for_the_same_wager_again():
    ctx, request = make_context(), _request()
    journal = spin_core(ctx).given().when(request, NOW).decision.events
    spin_core(ctx).given(*journal).when(request, NOW).then().then_commands(PlaceWager)


def _six_hop_journal(asked: Message) -> tuple:
    """What the six-hop flow journaled for a request: SpinAccepted, then (after its debit) a plain SeedDrawn."""
    data, seed = asked.payload.data, seed_for(lambda word: word % 7 != 0, "rising-joker")
    wager = dict(request_id=data.request_id, player_id=data.player_id, game=data.game, stake_minor=data.stake_minor)
    wager["currency"] = data.currency
    accepted = SpinAccepted(**wager, request_event_id=asked.payload.id, requested_at=NOW, accepted_at=NOW)
    drawn = SeedDrawn(**wager, model_version="fake-slot-v1", seed=seed.hex(), state_before={}, drawn_at=NOW)
    return tuple(envelope(fact, source="reelstream/spin", time=NOW) for fact in (accepted, drawn))


def test_given_a_spin_an_earlier_version_seeded_after_its_debit_a_repeat_asks_for_the_debit_and_it_settles_as_then():
    ctx, request = make_context(), _request()
    given = spin_core(ctx).given(*_six_hop_journal(request))
    repeat = given.when(request, NOW).then().then_commands(DebitWager)  # never a PlaceWager under a debited wager's id
    played = given.when(fact(debited_for(repeat.decision.commands[0])), NOW).then_commands(Contribute, SettleWager)
    answered = given.when(fact(settled_for(played.decision.commands[1], 10)), NOW)
    answered.then().then_commands().then_answers(SpinSettled)  # its contribution went out with its settlement
