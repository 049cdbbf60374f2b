"""The logic-CPU bench drives every spin of a round to its settlement through the three services' own deciders."""

from __future__ import annotations

import pytest

from bench import saga_cpu


def test_a_round_settles_every_spin_and_times_each_service():
    with saga_cpu._unsigned():
        figures = saga_cpu.one_round(spins=60, players=7)
    for service in ("spin request", "wallet", "spin wallet facts", "jackpot"):
        assert figures[service] > 0, service
    assert 0 <= figures["claims_per_spin"] <= 1


def test_a_round_whose_spins_are_refused_measures_nothing(monkeypatch):
    monkeypatch.setattr(saga_cpu, "STAKE", 10**10)  # above every player's funds: each wager is refused
    with saga_cpu._unsigned(), pytest.raises(AssertionError, match="settled"):
        saga_cpu.one_round(spins=3, players=1)


def test_the_signing_directory_is_put_back(monkeypatch):
    monkeypatch.setenv(saga_cpu.SIGNING_DIR_ENV, "/somewhere")
    with saga_cpu._unsigned():
        assert saga_cpu.SIGNING_DIR_ENV not in saga_cpu.os.environ
    assert saga_cpu.os.environ[saga_cpu.SIGNING_DIR_ENV] == "/somewhere"
