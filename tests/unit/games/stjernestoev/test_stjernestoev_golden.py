"""Fixed-seed golden outcomes: any change to the rules, the model or the outcome shape shows up here.

Each case: seed = sha256(label), a player state, a stake -> paid win, claims, sha256 of the canonical outcome JSON
and the state after. A deliberate change re-pins these together with a new model version and par sheet.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from games.stjernestoev import engine_for_model
from games.rng import SpinRng

ENGINE = engine_for_model("stjernestoev-v2")  # pinned under v2; v3 changes only wheel weights (test below)
NEW = {"bonus_ring": [None] * 5, "ring_stake_minor": None}
RING = {
    "bonus_ring": [
        {"symbol": "wild", "multiplier": 3},
        {"symbol": "red", "multiplier": 2},
        {"symbol": "astro"},
        {"symbol": "astro"},
        {"symbol": "blue", "multiplier": 4},
    ],
    "ring_stake_minor": 500,
}
ASTRO_3 = {"bonus_ring": [{"symbol": "astro"}] * 3 + [None, None], "ring_stake_minor": 10000}
EMPTY_AFTER = {"bonus_ring": [None] * 5, "ring_stake_minor": None}

GOLDEN = [
    ("golden-0", NEW, 50, 0, (), "e6968e3aaf46a9cac23db4ce638b9b028b76289f2a78a3c228427fe5a3c749d5", EMPTY_AFTER),
    ("golden-3", NEW, 50, 178, (), "7b5c416274e4d6c4debec0d55e6e293cf707990e445b8d95361b3813166a2ab6", EMPTY_AFTER),
    ("golden-271", NEW, 50, 3016, (), "64675b1f8b5b668593a8c994aaf6069517bc03a06ef65b6786f0a02cce94caf1", EMPTY_AFTER),
    (
        "golden-0",
        RING,
        500,
        0,
        (),
        "c8212ef0edb3333d4e423eeca6e3e2bfa37acdfd69ccbdb78d003784084ed653",
        {
            "bonus_ring": [
                None,
                {"symbol": "wild", "multiplier": 3},
                {"symbol": "red", "multiplier": 2},
                {"symbol": "astro"},
                {"symbol": "astro"},
            ],
            "ring_stake_minor": 500,
        },
    ),
    (
        "golden-1",
        RING,
        500,
        12660,
        (),
        "9e68139ecce213ae2fe04e4d648aa19f5b9e3de36533e71f7b175d0607d16aac",
        {
            "bonus_ring": [
                {"symbol": "blue", "multiplier": 4},
                {"symbol": "wild", "multiplier": 3},
                {"symbol": "red", "multiplier": 2},
                None,
                None,
            ],
            "ring_stake_minor": 500,
        },
    ),
    (
        "golden-3",
        RING,
        500,
        2780,
        (),
        "f49aaa51c30475725457e0c4ff1789f96aa8029df1df5ce35762bfebef94b8d1",
        {"bonus_ring": [None, None, None, {"symbol": "astro"}, {"symbol": "astro"}], "ring_stake_minor": 500},
    ),
    (
        "claim-65",
        ASTRO_3,
        10000,
        3200,
        ("jackpot",),
        "c6c0b46a01030b42df9fb2e2a6f1978a93748a8d4e0eda4795056319c91fdb4d",
        {"bonus_ring": [{"symbol": "bar", "multiplier": 3}, None, None, None, None], "ring_stake_minor": 10000},
    ),
    (
        "claim-340",
        ASTRO_3,
        10000,
        0,
        ("supernova",),
        "884fde840f873339d358c3fe6a4fe85817ccbec846a2d30567751d4b5217d33e",
        EMPTY_AFTER,
    ),
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


V1_GOLDEN_1_SHA256 = "b0313e7042dbc7ab3856032a209394c42c113ae1688b103203532e1312812703"  # pinned under v1


def test_the_cli_replays_a_spin_exactly_as_the_service_played_it():
    from mathtools.stjernestoev import evaluate

    seed = hashlib.sha256(b"golden-1").hexdigest()
    replay = evaluate(stake_minor=500, seed=seed, state=RING, model_version="stjernestoev-v2")
    assert replay["model_version"] == "stjernestoev-v2"
    assert replay["win_minor"] == 12660 and replay["state_after"] == GOLDEN[4][6]
    assert hashlib.sha256(json.dumps(replay["outcome"], sort_keys=True).encode()).hexdigest() == GOLDEN[4][5]


def test_v3_plays_every_v2_golden_spin_alike_except_for_the_model_fields():
    """v3 moved weight between the wheel's fixed segments only, at the same total: the same words give the same
    boards, cascades, segment draws (these goldens hold no feature with a different segment) and ring."""
    from mathtools.stjernestoev import evaluate

    for label, state, stake, win_minor, claims, _, state_after in GOLDEN:
        replay = evaluate(
            stake_minor=stake,
            seed=hashlib.sha256(label.encode()).hexdigest(),
            state=state,
            model_version="stjernestoev-v3",
        )
        assert replay["model_version"] == "stjernestoev-v3"
        assert (replay["win_minor"], tuple(replay["claims"]), replay["state_after"]) == (win_minor, claims, state_after)


def test_a_spin_recorded_under_the_released_v1_model_still_replays_to_its_pinned_outcome():
    from mathtools.stjernestoev import evaluate

    seed = hashlib.sha256(b"golden-1").hexdigest()
    replay = evaluate(stake_minor=500, seed=seed, state=RING, model_version="stjernestoev-v1")
    assert replay["outcome"]["model_version"] == "stjernestoev-v1"
    assert hashlib.sha256(json.dumps(replay["outcome"], sort_keys=True).encode()).hexdigest() == V1_GOLDEN_1_SHA256
