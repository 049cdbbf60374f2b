"""A restarted service is ready only by its own ready line, never by one an earlier run left in the appended log."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reelstream.processes import ServiceProcess
from shared.readiness import ready_line


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])


def test_an_earlier_runs_ready_line_does_not_make_a_restart_ready(tmp_path):
    log = tmp_path / "spin.log"
    log.write_text(f"first run\n{ready_line('spin')}\nstopped\n")
    process = _sleeper()
    try:
        restarted = ServiceProcess("spin", process, log, log_start=log.stat().st_size)
        with pytest.raises(TimeoutError, match="did not log"):
            restarted.wait_ready(timeout_s=0.3)
        with open(log, "a") as appended:
            appended.write(ready_line("spin") + "\n")
        restarted.wait_ready(timeout_s=5)
        assert restarted.own_log_text() == ready_line("spin") + "\n"
        assert restarted.log_text().count(ready_line("spin")) == 2
    finally:
        process.kill()
        process.wait()
