"""A SIGTERM to a chaos run ends it through its `finally` (services stopped, report written), and the run puts the
process's previous SIGTERM handler back when it ends."""

import os
import signal

import pytest

from reelstream.chaos import run


def test_a_sigterm_during_a_run_unwinds_it_and_the_previous_handler_comes_back(monkeypatch):
    unwound = []

    def body(plan, out_dir, echo):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            signal.pause()  # the handler interrupts the wait (never reached with the default action's kill)
        finally:
            unwound.append(True)

    monkeypatch.setattr(run, "_run", body)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stopped:
        run.run_chaos(None, None)
    assert stopped.value.code == 128 + signal.SIGTERM
    assert unwound == [True]
    assert signal.getsignal(signal.SIGTERM) is before
