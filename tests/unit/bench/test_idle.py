"""The idle probe: CPU seconds over a quiet interval, in percent of one core, by process and in all."""

from __future__ import annotations

import os

import pytest

from bench.idle import core_percent, measure


def test_a_process_that_spent_a_tenth_of_the_interval_used_ten_percent_of_a_core():
    assert core_percent({"spin": 1.0, "broker": 5.0}, {"spin": 1.5, "broker": 5.25}, seconds=5) == {
        "spin": 10.0,
        "broker": 5.0,
    }


def test_an_interval_without_length_is_refused():
    with pytest.raises(AssertionError):
        core_percent({}, {}, seconds=0)


def test_the_probe_counts_the_broker_in_the_idle_figure_and_apart_from_the_services():
    burnt = {"spent": 0.0}

    def busy_sleep(seconds: float) -> None:
        # This process stands in for both: it spends CPU instead of sleeping.
        before = os.times()
        while os.times().user + os.times().system - before.user - before.system < 0.05:
            pass
        burnt["spent"] = seconds

    figures = measure({"spin": os.getpid(), "broker": os.getpid()}, 0.05, sleep=busy_sleep)

    assert figures["by_process"]["spin"] > 0
    assert figures["idle_core_percent"] == pytest.approx(sum(figures["by_process"].values()), abs=0.02)
    assert figures["services_core_percent"] == figures["by_process"]["spin"]
