"""The chaos run's fault schedule: kills clear of the broker restart, the PostgreSQL stop and one another."""

from __future__ import annotations

import random

import pytest

from reelstream.chaos.schedule import (
    BEFORE_S,
    BROKER_CLEAR_S,
    KILL_SPACING_S,
    PG_CLEAR_S,
    fault_schedule,
)

SERVICES = ("wallet", "jackpot", "spin", "projector")


@pytest.mark.parametrize(("kills", "window_s"), [(5, 40.0), (100, 1800.0), (100, 60.0), (0, 20.0)])
def test_every_kill_is_clear_of_the_broker_restart_the_postgres_stop_and_the_other_kills(kills, window_s):
    steps = fault_schedule(random.Random(7), SERVICES, kills, window_s, True, 10.0)
    [restart] = [at for at, kind in steps if kind == "broker restart"]
    [stop] = [at for at, kind in steps if kind == "postgres stop"]
    moments = [at for at, kind in steps if kind.startswith("kill ")]
    assert len(moments) == kills
    assert all(not restart - BEFORE_S <= at <= restart + BROKER_CLEAR_S for at in moments)
    assert all(not stop - BEFORE_S <= at <= stop + 10.0 + PG_CLEAR_S for at in moments)
    assert all(b - a >= KILL_SPACING_S for a, b in zip(moments, moments[1:]))
    assert steps == sorted(steps)


def test_the_same_seed_gives_the_same_schedule_and_kills_name_known_services():
    first = fault_schedule(random.Random(3), SERVICES, 20, 600.0, True, 10.0)
    assert first == fault_schedule(random.Random(3), SERVICES, 20, 600.0, True, 10.0)
    assert {kind.split(" ", 1)[1] for _, kind in first if kind.startswith("kill ")} <= set(SERVICES)


def test_without_a_broker_restart_or_postgres_stop_only_the_spacing_constrains_kills():
    steps = fault_schedule(random.Random(1), SERVICES, 10, 30.0, False, 0.0)
    assert [kind for _, kind in steps if not kind.startswith("kill ")] == []
    moments = [at for at, _ in steps]
    assert all(b - a >= KILL_SPACING_S for a, b in zip(moments, moments[1:]))
