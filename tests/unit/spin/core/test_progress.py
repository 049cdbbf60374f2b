"""From the request to the answer: the seed and the one wager command together; a claim: debit, contribution and
claims, one settlement; a refusal voids the outcome; one answer."""

import pytest

from services.spin.core.book import SpinBook
from games.rng import SpinRng

from tests.support.spin import (
    NO_CLAIM,
    CLAIM,
    handle_event,
    handle_request,
    NOW_MS,
    SeedReadingSlot,
    Seeds,
    claim_refused_for,
    debit_refused_for,
    debited_for,
    decoded,
    make_context,
    only,
    placed_for,
    refunded_for,
    request_bytes,
    settled_for,
    won_for,
)


def accept(book, ctx, **fields):
    request_id, raw = request_bytes(**fields)
    effects = handle_request(book, ctx, raw, fields.get("player", "p-1").encode(), NOW_MS, 0, 0)
    return request_id, effects


def test_a_spin_without_a_claim_is_one_place_wager_committed_with_its_seed_and_contributes_once_settled():
    seeds = Seeds(NO_CLAIM)
    book, ctx = SpinBook(), make_context(seeds)
    request_id, asked = accept(book, ctx, stake=10)
    assert [out.kind for out in asked.journal] == ["seed"]  # SeedDrawn with the acceptance, in the transaction
    drawn = decoded(only(asked.journal, "seed"))
    assert (drawn.seed, drawn.state_before) == (NO_CLAIM.hex(), {})
    assert [out.kind for out in asked.outputs] == ["place"]  # nothing else reveals the outcome yet
    place = decoded(only(asked.outputs, "place"))
    assert (place.transaction_id, place.amount_minor, place.house_win_minor) == (request_id, 10, 2 * 10)
    assert (place.breakage_micro, place.contribution_micro) == (5, 10 * 10_000)
    debited, settled_fact = placed_for(only(asked.outputs, "place"), 1234)
    assert handle_event(book, ctx, debited, NOW_MS).outputs == []  # its settlement follows in the same transaction
    answer = handle_event(book, ctx, settled_fact, NOW_MS)
    assert sorted(out.kind for out in answer.outputs) == ["answer", "contribute"]  # a pool sees only a taken wager
    assert decoded(only(answer.outputs, "contribute")).contribution_micro == place.contribution_micro
    settled = decoded(only(answer.outputs, "answer"))
    assert (settled.request_id, settled.win_minor, settled.balance_after_minor) == (request_id, 20, 1234)
    assert settled.seed == NO_CLAIM.hex()
    assert settled.model_version == "fake-slot-v1"
    assert (settled.model_sha256, settled.outcome_manifest_sha256) == ("a" * 64, "c" * 64)  # the engine's pins
    assert settled.engine_code_sha256 is None
    assert seeds.drawn == 1


def test_redelivered_wallet_facts_and_a_repeat_in_flight_reuse_the_persisted_seed_and_the_same_command():
    seeds = Seeds(NO_CLAIM)
    book, ctx = SpinBook(), make_context(seeds)
    request_id, raw = request_bytes()
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    again = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 1)
    assert again.journal == [] and seeds.drawn == 1
    assert decoded(only(again.outputs, "place")) == decoded(only(asked.outputs, "place"))
    debited, settled_fact = placed_for(only(asked.outputs, "place"))
    first = handle_event(book, ctx, settled_fact, NOW_MS)
    assert handle_event(book, ctx, debited, NOW_MS).outputs == []
    assert handle_event(book, ctx, settled_fact, NOW_MS).outputs == []  # answered: nothing twice
    assert only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 2).outputs, "answer").value == (
        only(first.outputs, "answer").value
    )


def test_a_claim_waits_for_the_jackpot_and_the_one_settlement_carries_the_pool_share():
    book, ctx = SpinBook(), make_context(Seeds(CLAIM))
    _, asked = accept(book, ctx, stake=100)
    assert [out.kind for out in asked.journal] == ["seed"]
    assert [out.kind for out in asked.outputs] == ["debit"]  # a claim needs the wager taken first
    effects = handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    assert [out.kind for out in effects.outputs] == ["contribute", "claim"]
    won, raw = won_for(only(effects.outputs, "claim"), amount_minor=777)
    settle_out = only(handle_event(book, ctx, won, NOW_MS).outputs, "settle")
    assert decoded(settle_out).jackpot_win_minor == 777
    settled = decoded(only(handle_event(book, ctx, settled_for(settle_out), NOW_MS).outputs, "answer"))
    expected_house = SpinRng(CLAIM).next_u64() % 3 * 100
    assert settled.win_minor == expected_house + 777
    assert settled.jackpot_awards[0].amount_minor == 777


def test_a_rejected_claim_pays_nothing_from_the_pool_and_the_spin_still_settles():
    book, ctx = SpinBook(), make_context(Seeds(CLAIM))
    _, asked = accept(book, ctx, stake=100)
    effects = handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    refused, raw = claim_refused_for(only(effects.outputs, "claim"))
    settle = decoded(only(handle_event(book, ctx, refused, NOW_MS).outputs, "settle"))
    assert settle.jackpot_win_minor == 0


def test_a_refused_wager_voids_its_outcome_answers_with_the_wallets_code_and_a_late_repeat_gets_the_same_answer():
    book, ctx = SpinBook(), make_context(Seeds(NO_CLAIM))
    request_id, raw = request_bytes()
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    rejected = handle_event(book, ctx, debit_refused_for(only(asked.outputs, "place"), "SELF_EXCLUDED"), NOW_MS)
    voided = decoded(only(rejected.journal, "journal"))
    assert (voided.TYPE, voided.request_id, voided.code) == ("reelstream.spin.voided.v1", request_id, "SELF_EXCLUDED")
    answer = only(rejected.outputs, "answer")
    assert [out.kind for out in rejected.outputs] == ["answer"]  # no contribution: the wager was never taken
    assert decoded(answer).code == "SELF_EXCLUDED"
    assert NO_CLAIM.hex() not in answer.value.decode()  # the voided outcome is never shown
    assert only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 1).outputs, "answer").value == answer.value


def test_a_refused_debit_of_a_claiming_spin_voids_it_before_any_claim_is_sent():
    book, ctx = SpinBook(), make_context(Seeds(CLAIM))
    _, asked = accept(book, ctx, stake=100)
    rejected = handle_event(book, ctx, debit_refused_for(only(asked.outputs, "debit"), "LIMIT_EXCEEDED"), NOW_MS)
    assert [out.kind for out in rejected.outputs] == ["answer"]
    assert decoded(only(rejected.outputs, "answer")).code == "LIMIT_EXCEEDED"


def test_a_spin_whose_model_is_not_in_this_build_is_refunded_before_anything_is_contributed():
    book, ctx = SpinBook(), make_context(shipped=False)
    _, asked = accept(book, ctx)
    assert [out.kind for out in asked.outputs] == ["debit"]  # unplayable: taken, then given back
    effects = handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    assert [out.kind for out in effects.outputs] == ["refund"]
    answer = handle_event(book, ctx, refunded_for(only(effects.outputs, "refund")), NOW_MS)
    assert decoded(only(answer.outputs, "answer")).code == "WAGER_REFUNDED"


def test_an_engine_that_breaks_while_playing_stops_the_service_instead_of_refunding():
    book, ctx = SpinBook(), make_context(slot=SeedReadingSlot(fail=True))
    with pytest.raises(RuntimeError, match="engine broken"):
        accept(book, ctx)


def test_wallet_facts_about_other_transactions_change_nothing():
    book, ctx = SpinBook(), make_context()
    _, asked = accept(book, ctx)
    stranger = debited_for(only(accept(SpinBook(), make_context())[1].outputs, "place"))
    assert handle_event(book, ctx, stranger, NOW_MS).outputs == []
