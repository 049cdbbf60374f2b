"""The chaos run with and without standbys: without, every killed service is replaced by a cold start under the same
instance id and no spare is ever started; with, a warm spare is released first."""

from __future__ import annotations

from pathlib import Path

from reelstream.chaos import run
from reelstream.chaos.run import SERVICES, ChaosPlan, Supervisor, spares_kept


class FakeProcess:
    def __init__(self, name: str, standby: bool, env: dict[str, str]) -> None:
        self.name, self.standby, self.env, self.released = name, standby, env, False

        class Popen:
            @staticmethod
            def poll():
                return None

        self.process = Popen()

    def release(self) -> None:
        self.released = True


def _supervisor(monkeypatch, plan: ChaosPlan) -> tuple[Supervisor, list[FakeProcess]]:
    spawned: list[FakeProcess] = []

    def spawn(name, env, log_dir, standby=False):
        spawned.append(FakeProcess(name, standby, env))
        return spawned[-1]

    monkeypatch.setattr(run, "spawn", spawn)
    monkeypatch.setattr(run, "SPARE_DELAY_S", 3600.0)  # no spare started behind a replacement during the test
    return Supervisor({}, Path("/nonexistent"), spares_kept(plan)), spawned


def test_without_standbys_a_replacement_is_a_cold_start_under_the_same_instance_id(monkeypatch):
    supervisor, spawned = _supervisor(monkeypatch, ChaosPlan(standbys=False))
    for name in SERVICES:
        supervisor._new_spare(name)
    assert spawned == [], "a spare was started without standbys"
    replacement = supervisor._replacement("wallet")
    assert (replacement.standby, supervisor.replaced_by["wallet"]) == (False, "cold start")
    assert replacement.env["REELSTREAM_INSTANCE_ID"] == "wallet-0"


def test_with_standbys_a_warm_spare_is_released_first(monkeypatch):
    supervisor, spawned = _supervisor(monkeypatch, ChaosPlan())
    supervisor._new_spare("wallet")
    assert [p.standby for p in spawned] == [True] * run.SPARES["wallet"]
    replacement = supervisor._replacement("wallet")
    assert replacement is spawned[0] and replacement.released
    assert supervisor.replaced_by["wallet"] == "warm spare"
