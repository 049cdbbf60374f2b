"""`reelstream chaos` exits 0 only when nothing was lost and every kill was answered again within the limit: 1 when
something was lost or not proven, 2 when nothing was lost but a kill's answer gap outlasted KILL_GAP_LIMIT_S."""

from __future__ import annotations

import pytest

from reelstream.chaos.run import KILL_GAP_LIMIT_S, ChaosReport, Fault
from reelstream.commands.chaos import exit_code


def report(gaps: list[float], **overrides) -> ChaosReport:
    found = ChaosReport(plan={}, started_at="now", answers_per_request_max=1, audited=True, final_spin="settled")
    found.faults = [Fault("kill spin", 10.0 * n, gap) for n, gap in enumerate(gaps)]
    found.faults.append(Fault("broker restart", 99.0, 30.0))  # measured apart: not a kill
    for name, value in overrides.items():
        setattr(found, name, value)
    return found


@pytest.mark.parametrize(
    ("found", "code"),
    [
        (report([0.1, KILL_GAP_LIMIT_S]), 0),
        (report([0.1, KILL_GAP_LIMIT_S + 0.01]), 2),
        (report([0.1], discrepancies=["a debit settled twice"]), 1),
        (report([KILL_GAP_LIMIT_S + 1], unanswered=1), 1),
        (report([0.1], audited=False), 1),
    ],
)
def test_the_exit_code_tells_a_loss_from_a_missed_gap_limit(found, code):
    assert exit_code(found) == code
