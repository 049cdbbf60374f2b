"""The service engine: the GameEngine contract, the stake lock and its release, forfeit, exact pricing, replay."""

from __future__ import annotations

import hashlib

import pytest

from games import registry
from games.stjernestoev import current_engine
from games.stjernestoev.kernel import draw_below
from games.rng import SpinRng
from shared.invariant import InvariantViolation
from shared.pools import load_pools

import numpy as np

ENGINE = current_engine()


def rng(label: str) -> SpinRng:
    return SpinRng(hashlib.sha256(label.encode()).digest())


def first_spin_leaving_symbols(stake: int) -> tuple[str, dict]:
    for i in range(200):
        result = ENGINE.play(ENGINE.initial_state(), stake, rng(f"lock-{i}"))
        if ENGINE.locked_stake(result.state_after) is not None:
            return f"lock-{i}", result.state_after
    raise AssertionError("no spin in 200 left a bonus symbol on the ring")


def test_the_engine_is_registered_for_the_game_with_its_17_stakes_in_dkk():
    engine = registry.engine("stjernestoev")
    assert (engine.game, engine.currency, engine.model_version) == ("stjernestoev", "DKK", "stjernestoev-v3")
    assert engine.stakes_minor == (
        50,
        100,
        200,
        300,
        400,
        500,
        600,
        800,
        1000,
        1200,
        1500,
        2000,
        2500,
        3000,
        4000,
        5000,
        10000,
    )
    assert registry.engine_for_model("stjernestoev", "stjernestoev-v3") is engine
    assert registry.engine_for_model("stjernestoev", "stjernestoev-v2").model_version == "stjernestoev-v2"
    assert registry.engine_for_model("stjernestoev", "stjernestoev-v1").model_version == "stjernestoev-v1"


def test_a_new_player_has_an_empty_ring_and_no_locked_stake():
    assert ENGINE.initial_state() == {"bonus_ring": [None] * 5, "ring_stake_minor": None}
    assert ENGINE.locked_stake(ENGINE.initial_state()) is None


def test_pending_bonus_symbols_lock_the_stake_they_were_earned_at():
    _, state = first_spin_leaving_symbols(300)
    assert ENGINE.locked_stake(state) == 300
    with pytest.raises(InvariantViolation):
        ENGINE.play(state, 500, rng("other stake"))
    assert ENGINE.play(state, 300, rng("same stake")).win_minor >= 0


def test_forfeit_clears_the_ring_and_releases_the_stake():
    _, state = first_spin_leaving_symbols(300)
    cleared = ENGINE.forfeit(state)
    assert cleared == ENGINE.initial_state() and ENGINE.locked_stake(cleared) is None
    ENGINE.play(cleared, 500, rng("after forfeit"))


def test_the_lock_is_released_once_the_ring_has_emptied_by_itself():
    _, state = first_spin_leaving_symbols(300)
    for i in range(500):
        state = ENGINE.play(state, 300, rng(f"release-{i}")).state_after
        if ENGINE.locked_stake(state) is None:
            assert state == ENGINE.initial_state()
            return
    raise AssertionError("the ring never emptied in 500 spins")


def test_a_spin_is_a_pure_function_of_seed_and_state():
    label, state = first_spin_leaving_symbols(1000)
    first = ENGINE.play(state, 1000, rng("replay"))
    again = ENGINE.play(state, 1000, rng("replay"))
    assert first == again


def test_win_is_the_exact_amount_rounded_down_with_the_remainder_as_breakage():
    state = ENGINE.initial_state()
    for i in range(300):
        stake = ENGINE.stakes_minor[i % 17]
        result = ENGINE.play(ENGINE.initial_state(), stake, rng(f"price-{i}"))
        totals = result.outcome["totals"]
        assert totals["exact_micro"] == result.win_minor * 1_000_000 + result.breakage_micro
        assert 0 <= result.breakage_micro < 1_000_000
        cascades = result.outcome["cascades"] + (result.outcome["astro_flash"] or {}).get("cascades", [])
        assert totals["clusters_micro"] == sum(c["win_micro"] for s in cascades for c in s["clusters"])
    assert state == ENGINE.initial_state()


def test_claims_name_tiers_of_the_games_jackpot_network():
    tiers = {pool.tier for pool in load_pools().network_for_game("stjernestoev").pools}
    assert tiers == {"jackpot", "supernova"}
    from games.stjernestoev.model import JACKPOT_SEGMENTS

    assert set(JACKPOT_SEGMENTS) == tiers


def test_unknown_stakes_are_a_programmer_error():
    with pytest.raises(InvariantViolation):
        ENGINE.play(ENGINE.initial_state(), 700, rng("bad stake"))


def test_the_kernel_maps_words_to_ranges_exactly_like_the_spin_rng():
    reference, words = rng("words"), rng("words")
    stream = np.array([words.next_u64() for _ in range(5000)], np.uint64)
    cursor = np.zeros(2, np.int64)
    for n in (1, 2, 3, 5, 7, 11, 1000, 1011, 30_000_000, 2**40 + 3):
        for _ in range(100):
            assert draw_below(stream, cursor, n) == reference.below(n)
    assert cursor[0] == reference.draws
