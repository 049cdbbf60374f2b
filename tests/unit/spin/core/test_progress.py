"""From the request to the answer: the seed and the one wager command together; a claim: debit, contribution and
claims, one settlement; a refusal voids the outcome; one answer."""

import pytest

from games.rng import SpinRng
from shared.events import broker_time, encode
from shared.events.jackpot import Claim, Contribute
from shared.events.spin import SeedDrawn, SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager
from tests.support.spin import (
    NO_CLAIM,
    CLAIM,
    NOW_MS,
    SeedReadingSlot,
    Seeds,
    claim_refused_for,
    debit_refused_for,
    debited_for,
    fact,
    make_context,
    one,
    placed_for,
    refunded_for,
    request,
    request_bytes,
    sent,
    settled_for,
    spin_core,
    won_for,
)

NOW = broker_time(NOW_MS)


def accept(ctx, **fields):
    """Given nothing, a request decided: its id and the spin (gwt)."""
    request_id, raw = request_bytes(**fields)
    return request_id, spin_core(ctx).given().when(request(raw, fields.get("player", "p-1").encode()), NOW)


def test_a_spin_without_a_claim_is_one_place_wager_committed_with_its_seed_and_contributes_once_settled():
    seeds = Seeds(NO_CLAIM)
    request_id, asked = accept(make_context(seeds), stake=10)
    asked.then(SeedDrawn)  # SeedDrawn with the acceptance, in the transaction
    drawn = asked.decision.events[0].data
    assert (drawn.seed, drawn.state_before) == (NO_CLAIM.hex(), {})
    assert sent(asked.decision) == ["PlaceWager"]  # nothing else reveals the outcome yet
    place = one(asked.decision.commands, PlaceWager)
    assert (place.data.transaction_id, place.data.amount_minor, place.data.house_win_minor) == (request_id, 10, 2 * 10)
    assert (place.data.breakage_micro, place.data.contribution_micro) == (5, 10 * 10_000)
    debited, settled_fact = placed_for(place, 1234)
    assert sent(asked.when(fact(debited), NOW).decision) == []  # its settlement follows in the same transaction
    answer = asked.when(fact(settled_fact), NOW)
    answer.then_commands(Contribute).then_answers(SpinSettled)  # a pool sees only a taken wager
    assert answer.decision.commands[0].data.contribution_micro == place.data.contribution_micro
    settled = answer.decision.answers[0].data
    assert (settled.request_id, settled.win_minor, settled.balance_after_minor) == (request_id, 20, 1234)
    assert settled.seed == NO_CLAIM.hex()
    assert settled.model_version == "fake-slot-v1"
    assert (settled.model_sha256, settled.outcome_manifest_sha256) == ("a" * 64, "c" * 64)  # the engine's pins
    assert settled.engine_code_sha256 is None
    assert seeds.drawn == 1


def test_redelivered_wallet_facts_and_a_repeat_in_flight_reuse_the_persisted_seed_and_the_same_command():
    seeds = Seeds(NO_CLAIM)
    given = spin_core(make_context(seeds)).given()
    request_id, raw = request_bytes()
    asked = given.when(request(raw, offset=0), NOW)
    again = given.when(request(raw, offset=1), NOW).then()
    assert seeds.drawn == 1
    assert one(again.decision.commands, PlaceWager).data == one(asked.decision.commands, PlaceWager).data
    debited, settled_fact = placed_for(one(asked.decision.commands, PlaceWager))
    first = given.when(fact(settled_fact), NOW)
    assert sent(given.when(fact(debited), NOW).decision) == []
    assert sent(given.when(fact(settled_fact), NOW).decision) == []  # answered: nothing twice
    given.when(request(raw, offset=2), NOW).then_commands().then_answers().then_repeated(
        one(first.decision.answers, SpinSettled)
    )


def test_a_claim_waits_for_the_jackpot_and_the_one_settlement_carries_the_pool_share():
    _, asked = accept(make_context(Seeds(CLAIM)), stake=100)
    asked.then(SeedDrawn).then_commands(DebitWager)  # a claim needs the wager taken first
    debited = asked.when(fact(debited_for(asked.decision.commands[0])), NOW).then_commands(Contribute, Claim)
    won, _ = won_for(debited.decision.commands[1], amount_minor=777)
    settle = one(asked.when(fact(won), NOW).decision.commands, SettleWager)
    assert settle.data.jackpot_win_minor == 777
    answered = asked.when(fact(settled_for(settle)), NOW).then_answers(SpinSettled)
    settled = answered.decision.answers[0].data
    expected_house = SpinRng(CLAIM).next_u64() % 3 * 100
    assert settled.win_minor == expected_house + 777
    assert settled.jackpot_awards[0].amount_minor == 777


def test_a_rejected_claim_pays_nothing_from_the_pool_and_the_spin_still_settles():
    _, asked = accept(make_context(Seeds(CLAIM)), stake=100)
    debited = asked.when(fact(debited_for(one(asked.decision.commands, DebitWager))), NOW)
    refused, _ = claim_refused_for(one(debited.decision.commands, Claim))
    settle = one(asked.when(fact(refused), NOW).decision.commands, SettleWager)
    assert settle.data.jackpot_win_minor == 0


def test_a_refused_wager_voids_its_outcome_answers_with_the_wallets_code_and_a_late_repeat_gets_the_same_answer():
    given = spin_core(make_context(Seeds(NO_CLAIM))).given()
    request_id, raw = request_bytes()
    asked = given.when(request(raw, offset=0), NOW)
    refusal = debit_refused_for(one(asked.decision.commands, PlaceWager), "SELF_EXCLUDED")
    rejected = given.when(fact(refusal), NOW).then(SpinVoided)
    voided = rejected.decision.events[0].data
    assert (voided.TYPE, voided.request_id, voided.code) == ("reelstream.spin.voided.v1", request_id, "SELF_EXCLUDED")
    assert sent(rejected.decision) == ["SpinRejected"]  # no contribution: the wager was never taken
    answer = rejected.decision.answers[0]
    assert answer.data.code == "SELF_EXCLUDED"
    assert NO_CLAIM.hex() not in encode(answer).decode()  # the voided outcome is never shown
    given.when(request(raw, offset=1), NOW).then_answers().then_repeated(answer)


def test_a_refused_debit_of_a_claiming_spin_voids_it_before_any_claim_is_sent():
    _, asked = accept(make_context(Seeds(CLAIM)), stake=100)
    refusal = debit_refused_for(one(asked.decision.commands, DebitWager), "LIMIT_EXCEEDED")
    rejected = asked.when(fact(refusal), NOW)
    assert sent(rejected.decision) == ["SpinRejected"]
    assert one(rejected.decision.answers, SpinRejected).data.code == "LIMIT_EXCEEDED"


def test_a_spin_whose_model_is_not_in_this_build_is_refunded_before_anything_is_contributed():
    _, asked = accept(make_context(shipped=False))
    assert sent(asked.decision) == ["DebitWager"]  # unplayable: taken, then given back
    debited = asked.when(fact(debited_for(asked.decision.commands[0])), NOW)
    assert sent(debited.decision) == ["RefundWager"]
    answer = asked.when(fact(refunded_for(one(debited.decision.commands, RefundWager))), NOW)
    assert one(answer.decision.answers, SpinRejected).data.code == "WAGER_REFUNDED"


def test_an_engine_that_breaks_while_playing_stops_the_service_instead_of_refunding():
    with pytest.raises(RuntimeError, match="engine broken"):
        accept(make_context(slot=SeedReadingSlot(fail=True)))


def test_wallet_facts_about_other_transactions_change_nothing():
    _, asked = accept(make_context())
    _, elsewhere = accept(make_context())
    stranger = debited_for(one(elsewhere.decision.commands, PlaceWager))
    assert sent(asked.when(fact(stranger), NOW).decision) == []


def _settlement_refused(settle, code: str):
    """The wallet's refusal of a SettleWager (its id is the settlement's; it names the wager)."""
    from shared.events.wallet import CommandRejected
    from tests.support.spin import wallet_event

    data = settle.data
    return wallet_event(
        CommandRejected(
            transaction_id=data.transaction_id,
            player_id=data.player_id,
            recorded_at=NOW,
            command_type=data.TYPE,
            code=code,
            message="no",
            currency=data.currency,
            wager_id=data.wager_id,
        )
    )


def _settling():
    """Given a claiming spin debited and its claim answered: the spin and its SettleWager."""
    _, asked = accept(make_context(Seeds(CLAIM)), stake=100)
    debited = asked.when(fact(debited_for(one(asked.decision.commands, DebitWager))), NOW)
    won, _ = won_for(one(debited.decision.commands, Claim))
    return asked, one(asked.when(fact(won), NOW).decision.commands, SettleWager)


def test_a_refused_settlement_refunds_the_wager_and_the_refund_answers_the_player():
    # Scenario: the wallet refuses the one settlement (here: a pool share it cannot verify); the debit must not stay
    # open, so the spin gives the stake back and answers once the refund is written.
    asked, settle = _settling()
    refunding = asked.when(fact(_settlement_refused(settle, "JACKPOT_UNPROVEN")), NOW).then_commands(RefundWager)
    refund = refunding.decision.commands[0].data
    assert (refund.wager_id, refund.currency) == (settle.data.wager_id, settle.data.currency)
    assert "JACKPOT_UNPROVEN" in refund.reason
    assert refunding.decision.answers == ()
    answer = asked.when(fact(refunded_for(refunding.decision.commands[0])), NOW)
    assert one(answer.decision.answers, SpinRejected).data.code == "WAGER_REFUNDED"


@pytest.mark.parametrize("code", ["WAGER_ALREADY_CLOSED", "WAGER_NOT_FOUND"])
def test_a_settlement_refused_because_the_wager_is_closed_sends_nothing(code):
    asked, settle = _settling()
    assert sent(asked.when(fact(_settlement_refused(settle, code)), NOW).decision) == []
