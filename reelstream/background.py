"""Processes started in the background and found again by a pid file under the state directory: what `services up`
and `refwallet up` started, stopped by their `down`."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path

STOP_WAIT_S = 20.0


def pid_file(state_dir: Path, name: str) -> Path:
    return state_dir / "services" / f"{name}.pid"


def remember(state_dir: Path, name: str, pid: int) -> None:
    path = pid_file(state_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(str(pid))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def running_pid(state_dir: Path, name: str) -> int | None:
    path = pid_file(state_dir, name)
    if not path.exists():
        return None
    pid = int(path.read_text().strip() or 0)
    return pid if pid and alive(pid) else None


def stop(state_dir: Path, name: str, echo: Callable[[str], None]) -> None:
    """SIGTERM to the process group of `name`'s pid file, SIGKILL after STOP_WAIT_S; the pid file goes either way."""
    stop_all(state_dir, (name,), echo)


def stop_all(state_dir: Path, names: Iterable[str], echo: Callable[[str], None]) -> None:
    """`stop` for each of `names`, all SIGTERMed at once: each shuts down on its own, so the slowest sets the time."""
    names, stopping = tuple(names), []
    for name in names:
        if (pid := running_pid(state_dir, name)) is not None:
            os.killpg(pid, signal.SIGTERM)
            echo(f"{name}: stopping (pid {pid})")
            stopping.append((name, pid))
    deadline = time.monotonic() + STOP_WAIT_S
    for name, pid in stopping:
        if not _wait_gone(pid, max(0.0, deadline - time.monotonic())):
            os.killpg(pid, signal.SIGKILL)
            echo(f"{name}: did not stop within {STOP_WAIT_S:.0f} s; killed")
    for name in names:
        pid_file(state_dir, name).unlink(missing_ok=True)


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return not alive(pid)
