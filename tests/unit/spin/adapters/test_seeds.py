"""The seed source: the OS CSPRNG by default; armed test seeds only outside production, in order, then the CSPRNG."""

import uuid

import pytest

from services.spin.adapters.seeds import os_seed, seed_source
from shared.test_only import HookRefused

A, B = "11" * 32, "22" * 32
TEST_HOOKS = {"REELSTREAM_TEST_HOOKS": "1"}


def test_without_an_override_every_seed_is_fresh_from_the_os():
    draw = seed_source({})
    assert draw is os_seed
    assert len({draw("p", uuid.uuid4()) for _ in range(100)}) == 100


def test_armed_seeds_are_drawn_in_order_for_their_player_only_then_the_os_again():
    draw = seed_source({**TEST_HOOKS, "REELSTREAM_TEST_SEEDS": f"p-1={A},{B};p-2={B}"})
    assert [draw("p-1", uuid.uuid4()).hex() for _ in range(2)] == [A, B]
    assert draw("p-1", uuid.uuid4()).hex() not in (A, B)
    assert draw("p-3", uuid.uuid4()).hex() not in (A, B)
    assert draw("p-2", uuid.uuid4()).hex() == B


def test_the_override_is_refused_without_the_test_flag_and_in_production_and_short_seeds_are_refused():
    with pytest.raises(HookRefused, match="REELSTREAM_TEST_HOOKS=1"):
        seed_source({"REELSTREAM_TEST_SEEDS": f"p-1={A}"})
    with pytest.raises(HookRefused, match="production"):
        seed_source({**TEST_HOOKS, "REELSTREAM_TEST_SEEDS": f"p-1={A}", "REELSTREAM_ENV": "production"})
    with pytest.raises(ValueError):
        seed_source({**TEST_HOOKS, "REELSTREAM_TEST_SEEDS": "p-1=abcd"})
