"""From the debit to the answer: seed journaled first, contribution then claims, one settlement, one answer."""

import pytest

from services.spin.core.book import SpinBook
from games.rng import SpinRng

from tests.support.spin import (
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
    refunded_for,
    request_bytes,
    seed_for,
    settled_for,
    won_for,
)

NO_CLAIM = seed_for(lambda word: word % 7 != 0 and word % 3 == 2, "rising-joker")
CLAIM = seed_for(lambda word: word % 7 == 0, "rising-joker")


def accept(book, ctx, **fields):
    request_id, raw = request_bytes(**fields)
    effects = handle_request(book, ctx, raw, fields.get("player", "p-1").encode(), NOW_MS, 0, 0)
    return request_id, effects


def test_a_confirmed_debit_draws_and_journals_the_seed_then_contributes_and_settles_the_house_win():
    seeds = Seeds(NO_CLAIM)
    book, ctx = SpinBook(), make_context(seeds)
    request_id, asked = accept(book, ctx, stake=10)
    effects = handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    drawn = decoded(only(effects.journal, "seed"))
    assert drawn.seed == NO_CLAIM.hex()
    assert drawn.state_before == {}
    assert [out.kind for out in effects.outputs] == ["contribute", "settle"]
    settle = decoded(only(effects.outputs, "settle"))
    assert settle.house_win_minor == 2 * 10
    assert settle.jackpot_win_minor == 0
    assert settle.breakage_micro == 5
    assert settle.contribution_micro == decoded(only(effects.outputs, "contribute")).contribution_micro == 10 * 10_000
    answer = handle_event(book, ctx, settled_for(only(effects.outputs, "settle"), 1234), NOW_MS)
    settled = decoded(only(answer.outputs, "answer"))
    assert (settled.request_id, settled.win_minor, settled.balance_after_minor) == (request_id, 20, 1234)
    assert settled.seed == NO_CLAIM.hex()
    assert settled.model_version == "fake-slot-v1"
    assert (settled.model_sha256, settled.engine_code_sha256) == ("a" * 64, "c" * 64)  # the engine's pins
    assert seeds.drawn == 1


def test_a_redelivered_debit_reuses_the_persisted_seed_and_resends_the_same_commands():
    seeds = Seeds(NO_CLAIM)
    book, ctx = SpinBook(), make_context(seeds)
    _, asked = accept(book, ctx)
    debited = debited_for(only(asked.outputs, "debit"))
    first = handle_event(book, ctx, debited, NOW_MS)
    again = handle_event(book, ctx, debited, NOW_MS)
    assert seeds.drawn == 1
    assert again.journal == []
    assert [out.value for out in again.outputs] == [out.value for out in first.outputs]


def test_a_claim_waits_for_the_jackpot_and_the_one_settlement_carries_the_pool_share():
    book, ctx = SpinBook(), make_context(Seeds(CLAIM))
    _, asked = accept(book, ctx, stake=100)
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


def test_a_refused_debit_answers_with_the_wallets_code_and_a_late_repeat_gets_the_same_answer():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes()
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    rejected = handle_event(book, ctx, debit_refused_for(only(asked.outputs, "debit"), "SELF_EXCLUDED"), NOW_MS)
    answer = only(rejected.outputs, "answer")
    assert decoded(answer).code == "SELF_EXCLUDED"
    assert only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 1).outputs, "answer").value == answer.value


def test_a_spin_whose_model_is_not_in_this_build_is_refunded_before_anything_is_contributed():
    book, ctx = SpinBook(), make_context(shipped=False)
    _, asked = accept(book, ctx)
    effects = handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)
    assert [out.kind for out in effects.outputs] == ["refund"]
    answer = handle_event(book, ctx, refunded_for(only(effects.outputs, "refund")), NOW_MS)
    assert decoded(only(answer.outputs, "answer")).code == "WAGER_REFUNDED"


def test_an_engine_that_breaks_while_playing_stops_the_service_instead_of_refunding():
    book, ctx = SpinBook(), make_context(slot=SeedReadingSlot(fail=True))
    _, asked = accept(book, ctx)
    with pytest.raises(RuntimeError, match="engine broken"):
        handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)


def test_wallet_facts_about_other_transactions_change_nothing():
    book, ctx = SpinBook(), make_context()
    _, asked = accept(book, ctx)
    stranger = debited_for(only(accept(SpinBook(), make_context())[1].outputs, "debit"))
    assert handle_event(book, ctx, stranger, NOW_MS).outputs == []
