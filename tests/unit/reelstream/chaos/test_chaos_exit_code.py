"""`reelstream chaos` exits 0 only when nothing was lost, no wager is open, the checked history is linearizable and
every fault was taken over and recovered from; 1 otherwise (a slow takeover is a figure, not a failure)."""

from __future__ import annotations

import pytest

from reelstream.chaos.run import ChaosReport, Fault
from reelstream.commands.chaos import exit_code


def report(takeovers: list[float | None], **overrides) -> ChaosReport:
    found = ChaosReport(
        plan={},
        started_at="now",
        answers_per_request_max=1,
        audited=True,
        final_spin="settled",
        open_wagers=0,
        linearizable=True,
    )
    found.faults = [Fault("kill spin", 10.0 * n, takeover, recovery_s=0.5) for n, takeover in enumerate(takeovers)]
    found.faults.append(Fault("broker restart", 99.0, recovery_s=30.0))  # no takeover: nothing was killed
    for name, value in overrides.items():
        setattr(found, name, value)
    return found


@pytest.mark.parametrize(
    ("found", "code"),
    [
        (report([0.1, 12.0]), 0),
        (report([0.1, None]), 1),
        (report([0.1], discrepancies=["a debit settled twice"]), 1),
        (report([0.1], unanswered=1), 1),
        (report([0.1], open_wagers=1), 1),
        (report([0.1], open_wagers=None), 1),
        (report([0.1], linearizable=False), 1),
        (report([0.1], linearizable=None), 1),
        (report([0.1], audited=False), 1),
    ],
)
def test_the_exit_code_fails_on_a_loss_an_open_wager_a_broken_history_or_an_unmeasured_fault(found, code):
    assert exit_code(found) == code


def test_a_client_that_gave_up_is_counted_apart_and_fails_nothing_by_itself():
    assert exit_code(report([0.1], gave_up=2)) == 0


def test_a_fault_not_recovered_from_fails_the_run():
    found = report([0.1])
    found.faults[-1].recovery_s = None
    assert found.unmeasured == ["broker restart at 99.0 s: no recovery"]
    assert exit_code(found) == 1


def test_a_run_that_injected_fewer_faults_than_planned_fails_and_says_what_stopped_it():
    found = report([0.1], faults_planned=5, faults_error="KafkaTimeoutError: a probe's deposit")
    assert found.unmeasured == ["2 of 5 faults injected: KafkaTimeoutError: a probe's deposit"]
    assert exit_code(found) == 1
    assert exit_code(report([0.1], faults_planned=2)) == 0


def test_the_fault_thread_records_what_stopped_it(monkeypatch):
    import threading

    from reelstream.chaos import run
    from reelstream.chaos.run import ChaosPlan, Faults

    def prober(settings):
        raise TimeoutError("a probe's deposit was not answered")

    monkeypatch.setattr(run, "Prober", prober)
    found = ChaosReport(plan={}, started_at="now")
    faults = Faults(None, ChaosPlan(kills=3, broker_restart=False, postgres_stop_s=0), None, found, print)
    warmed, done = threading.Event(), threading.Event()
    warmed.set()
    with pytest.raises(TimeoutError):
        faults.run(done, warmed)
    assert done.is_set() and found.faults_planned == 3
    assert found.unmeasured == ["0 of 3 faults injected: TimeoutError: a probe's deposit was not answered"]
