"""The seamless fault run end to end, tiny (reelstream/chaos/seamless_faults.py; `make seamless-faults` is the full
one): 30 spins of both games for demo-b seamless on the reference wallet, its answers faulted at the full run's rates,
the saga SIGKILLed midway and started again. It passes only when every request is answered once, the saga holds no
open round, every bet at the operator ends won or rolled back exactly once, every win is paid once, every balance is
what its rows say, reconciliation finds 0 differences and the audit 0 discrepancies; the result files are written."""

from __future__ import annotations

import json

import pytest

from reelstream.chaos.seamless_faults import FaultRunPlan, run

pytestmark = pytest.mark.integration


def test_a_tiny_fault_run_with_a_saga_kill_passes_every_check(tmp_path):
    report = run(FaultRunPlan(spins=30, clients=4, restart=("seamless-saga",)), tmp_path)

    assert report.requests >= 30 and report.settled + sum(report.rejected.values()) == report.requests
    assert [(r.service, r.signal) for r in report.restarts] == [("seamless-saga", "SIGKILL")]
    assert report.restarts[0].back_s is not None
    assert (report.unanswered, report.answers_per_request_max) == (0, 1)
    assert (report.saga_open, report.saga_reported) == (0, 0)
    assert report.problems == []
    assert report.rounds["bet"] == report.rounds["won"] + report.rounds["rolled_back"]
    assert report.rounds["won"] == report.settled
    assert report.wallet_calls > 0 and set(report.faults) == {"timeout", "lost", "http_500"}
    assert report.reconciliation["differences"] == 0, report.reconciliation
    assert report.audit["discrepancies"] == 0, report.audit
    assert report.passed
    written = json.loads((tmp_path / "seamless-faults.json").read_text())
    assert written["passed"] is True and written["requests"] == report.requests
    assert "**PASSED**" in (tmp_path / "seamless-faults.md").read_text()
