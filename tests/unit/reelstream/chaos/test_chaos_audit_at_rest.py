"""The chaos run's audit is at rest: once every request is answered nothing is in flight, so a wager still open fails
the run at its end, not after the saga's time limit (services/audit: `at_rest`).

Scenario: the platform's audit (a hand-written stand-in for the full audit) finds one debit neither settled nor
refunded; the run's check asks for the audit at rest, counts the wager open and fails.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

from services.audit.adapters import runner

from reelstream.chaos import run
from reelstream.chaos.run import ChaosReport

from test_chaos_exit_code import report as passing_report


class OneOpenWager:
    """The audit of a platform holding one open debit, remembering how it was asked."""

    def __init__(self) -> None:
        self.asked: list[dict] = []

    def __call__(self, settings, scope, **options) -> SimpleNamespace:
        self.asked.append(options)
        wagers = {
            "w-1": SimpleNamespace(settlement=None, refund=None),
            "w-2": SimpleNamespace(settlement=1, refund=None),
        }
        found = [SimpleNamespace(check="wager-open-too-long")] if options.get("at_rest") else []
        result = SimpleNamespace(facts=SimpleNamespace(quarantined=[]), ledger=SimpleNamespace(wagers=wagers))
        return SimpleNamespace(discrepancies=found, projection="matches", result=result)


def test_a_wager_open_at_the_end_of_the_run_fails_it_at_once(monkeypatch):
    audit = OneOpenWager()
    monkeypatch.setattr(runner, "audit_platform", audit)
    found: ChaosReport = passing_report([0.1])
    run._check(SimpleNamespace(), found, lambda line: None, deadline=time.monotonic() - 1)
    assert audit.asked == [{"at_rest": True}]
    assert found.open_wagers == 1
    assert len(found.discrepancies) == 1, "the audit at rest names the open debit"
    assert not found.passed
