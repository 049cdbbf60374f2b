"""A seamless fault run passes only when every check holds: each one failing alone fails the run."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict

import pytest

from reelstream.chaos.seamless_faults import FaultRunPlan, FaultRunReport, Restart


def _clean() -> FaultRunReport:
    return FaultRunReport(
        asdict(FaultRunPlan(spins=3)),
        "t",
        requests=3,
        restarts=[Restart("seamless-saga", "SIGKILL", 1.0, 2.0)],
        saga_open=0,
        saga_reported=0,
        unanswered=0,
        answers_per_request_max=1,
        reconciliation={"exit": 0, "differences": 0},
        audit={"exit": 0, "discrepancies": 0},
    )


def test_a_run_where_every_check_holds_passes():
    assert _clean().passed and _clean().document()["passed"] is True


@pytest.mark.parametrize(
    "change",
    [
        {"requests": 2},
        {"restarts": [Restart("wallet", "SIGKILL", 1.0, None)]},
        {"saga_open": 1},
        {"saga_reported": 1},
        {"unanswered": 1},
        {"unanswered": None},
        {"answers_per_request_max": 2},
        {"reconciliation": {"exit": 1, "differences": 1}},
        {"reconciliation": {"exit": 1, "differences": None}},
        {"audit": {"exit": 1, "discrepancies": 3}},
        {"audit": {}},
        {"problems": ["bet x ends in 0: nothing"]},
    ],
    ids=repr,
)
def test_any_one_check_failing_fails_the_run(change):
    assert not dataclasses.replace(_clean(), **change).passed
