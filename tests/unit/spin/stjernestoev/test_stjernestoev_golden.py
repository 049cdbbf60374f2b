"""Fixed-seed golden outcomes: any change to the rules, the model or the outcome shape shows up here.

Each case: seed = sha256(label), a player state, a stake -> paid win, claims, sha256 of the canonical outcome JSON
and the state after. A deliberate change re-pins these together with a new model version and par sheet.
"""
from __future__ import annotations

import hashlib
import json

import pytest

from services.spin.core.games.stjernestoev import current_engine
from services.spin.core.rng import SpinRng

ENGINE = current_engine()
NEW = {"bonus_ring": [None] * 5, "ring_stake_minor": None}
RING = {"bonus_ring": [{"symbol": "wild", "multiplier": 3}, {"symbol": "red", "multiplier": 2}, {"symbol": "astro"},
                       {"symbol": "astro"}, {"symbol": "blue", "multiplier": 4}], "ring_stake_minor": 500}
ASTRO_3 = {"bonus_ring": [{"symbol": "astro"}] * 3 + [None, None], "ring_stake_minor": 10000}
EMPTY_AFTER = {"bonus_ring": [None] * 5, "ring_stake_minor": None}

GOLDEN = [
    ("golden-0", NEW, 50, 0, (), "6f46e9c44476e73f3f945b38e32f4d2948decc0c5e5bb885727cccc0aa765c32", EMPTY_AFTER),
    ("golden-3", NEW, 50, 178, (), "8c289b16432d07c186060b1b5922ca3cfe4609887927733fc05187acd4f3fad7", EMPTY_AFTER),
    ("golden-271", NEW, 50, 3016, (), "ca1e5ecd2f110df9eb21b1608f8cc29f9aab8e8eadeb42c653e01848b8ed08e0", EMPTY_AFTER),
    ("golden-0", RING, 500, 0, (), "3662d9ba47499dc45c62e737b20b6fecc4da36d2dcf08acb97fde2a27acacdd5",
     {"bonus_ring": [None, {"symbol": "wild", "multiplier": 3}, {"symbol": "red", "multiplier": 2},
                     {"symbol": "astro"}, {"symbol": "astro"}], "ring_stake_minor": 500}),
    ("golden-1", RING, 500, 12660, (), "b0313e7042dbc7ab3856032a209394c42c113ae1688b103203532e1312812703",
     {"bonus_ring": [{"symbol": "blue", "multiplier": 4}, {"symbol": "wild", "multiplier": 3},
                     {"symbol": "red", "multiplier": 2}, None, None], "ring_stake_minor": 500}),
    ("golden-3", RING, 500, 2780, (), "c051877afab1235f83d724ac9af932cb8364fce9205d4d978b6f97489ea76667",
     {"bonus_ring": [None, None, None, {"symbol": "astro"}, {"symbol": "astro"}], "ring_stake_minor": 500}),
    ("claim-65", ASTRO_3, 10000, 3200, ("jackpot",), "6938c6a79dfd39b6a25f569d3ef03eb9bfdbbe0d705c81f30f65c9b003d1d273",
     {"bonus_ring": [{"symbol": "bar", "multiplier": 3}, None, None, None, None], "ring_stake_minor": 10000}),
    ("claim-340", ASTRO_3, 10000, 0, ("supernova",), "6c7b3eb36aa5db008c835eec312b1f7d7173235aa05a9888c4f25f2214c27910",
     EMPTY_AFTER),
]


@pytest.mark.parametrize("label, state, stake, win_minor, claims, outcome_sha256, state_after", GOLDEN)
def test_fixed_seeds_replay_to_the_pinned_outcome(label, state, stake, win_minor, claims, outcome_sha256, state_after):
    result = ENGINE.play(state, stake, SpinRng(hashlib.sha256(label.encode()).digest()))
    assert (result.win_minor, result.claims, result.state_after) == (win_minor, claims, state_after)
    assert hashlib.sha256(json.dumps(result.outcome, sort_keys=True).encode()).hexdigest() == outcome_sha256


def test_three_astro_flash_in_the_circles_always_start_the_feature_and_are_consumed():
    for i in range(30):
        result = ENGINE.play(ASTRO_3, 10000, SpinRng(hashlib.sha256(f"astro3-{i}".encode()).digest()))
        flash = result.outcome["astro_flash"]
        assert flash is not None and flash["circles_consumed"] == ["B1", "B2", "B3"]
        assert all(c is None or c["symbol"] != "astro" for c in result.state_after["bonus_ring"][1:4])


def test_the_cli_replays_a_spin_exactly_as_the_service_played_it():
    from reelstream.mathcli.stjernestoev import evaluate

    seed = hashlib.sha256(b"golden-1").hexdigest()
    replay = evaluate(stake_minor=500, seed=seed, state=RING, model_version="stjernestoev-v1")
    assert replay["win_minor"] == 12660 and replay["state_after"] == GOLDEN[4][6]
    assert hashlib.sha256(json.dumps(replay["outcome"], sort_keys=True).encode()).hexdigest() == GOLDEN[4][5]
