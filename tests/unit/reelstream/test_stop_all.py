"""Stopping several services SIGTERMs them all at once (the slowest sets the time, not the sum), whether they are
this process's children (`stop_all`) or found again by pid file (`services down`); one that ignores SIGTERM is killed.

Each child here exits on SIGTERM only once every sibling has had its SIGTERM too: stopped one after another, the
first would wait for the others until its stop timed out and it was killed."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

from reelstream import background
from reelstream.processes import ServiceProcess, stop_all
from shared.waits import wait_until

COUNT = 3
CHILD = """
import signal, sys, time
from pathlib import Path
ready, termed, me, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def on_term(*_):
    (termed / me).touch()
    while len(list(termed.iterdir())) < count:
        time.sleep(0.01)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term if count else signal.SIG_IGN)
(ready / me).touch()
time.sleep(120)
"""


def _children(tmp_path: Path, count: int = COUNT, waiting_for: int | None = None) -> list[subprocess.Popen]:
    ready, termed = tmp_path / "ready", tmp_path / "termed"
    ready.mkdir(exist_ok=True)
    termed.mkdir(exist_ok=True)
    siblings = count if waiting_for is None else waiting_for
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(ready), str(termed), f"c{n}", str(siblings)], start_new_session=True
        )
        for n in range(count)
    ]
    wait_until(lambda: len(list(ready.iterdir())) == count, 30, 0.05, what="the children's SIGTERM handlers set")
    return children


def _services(tmp_path: Path, children: list[subprocess.Popen]) -> list[ServiceProcess]:
    return [ServiceProcess(f"c{n}", child, tmp_path / f"c{n}.log") for n, child in enumerate(children)]


def test_stop_all_sigterms_every_service_before_waiting_for_any(tmp_path):
    children = _children(tmp_path)
    try:
        assert stop_all(_services(tmp_path, children), timeout_s=20) == [0] * COUNT
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_stop_all_kills_a_service_that_ignores_sigterm(tmp_path):
    [child] = _children(tmp_path, count=1, waiting_for=0)
    try:
        assert stop_all(_services(tmp_path, [child]), timeout_s=0.5) == [-signal.SIGKILL]
    finally:
        child.kill()
        child.wait()


def test_services_down_sigterms_every_service_before_waiting_for_any(tmp_path):
    state = tmp_path / "state"
    children = _children(tmp_path)
    reapers = [threading.Thread(target=child.wait, daemon=True) for child in children]  # so that a gone pid is gone
    for reaper in reapers:
        reaper.start()
    for n, child in enumerate(children):
        background.remember(state, f"c{n}", child.pid)
    said: list[str] = []
    try:
        background.stop_all(state, [f"c{n}" for n in range(COUNT)], said.append)
        for reaper in reapers:
            reaper.join(5)
        assert [child.returncode for child in children] == [0] * COUNT
        assert not any("killed" in line for line in said), said
        assert not list((state / "services").iterdir())
    finally:
        for child in children:
            child.kill()
            child.wait()
