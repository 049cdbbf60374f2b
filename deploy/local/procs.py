"""Daemon processes by pid file: spawn in an own process group, check liveness, stop only what we started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

from shared.waits import WaitTimeout, wait_until


def port_open(host: str, port: int, timeout_s: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def read_pid(pid_file: Path, marker: str) -> int | None:
    """The pid in `pid_file` when that process is alive and its command line contains `marker` (no pid reuse)."""
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    if marker not in cmdline(pid):
        return None
    return pid


def spawn_daemon(argv: list[str], log_file: Path, pid_file: Path, cwd: Path, env: dict[str, str]) -> int:
    """Start argv detached (own session, stdin closed, output appended to log_file) and record its pid."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pid_file.write_text(f"{process.pid}\n")
    return process.pid


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of this very process counts as dead; reap it.
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)
        return finished == 0
    except ChildProcessError:
        return "zombie" not in _state(pid)


def _state(pid: int) -> str:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return "zombie" if fields[0] == "Z" else fields[0]
    except (OSError, IndexError):
        return ""


def stop_group(pid: int, timeout_s: float) -> None:
    """SIGTERM the process group led by pid, wait up to timeout_s, then SIGKILL it."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        wait_until(lambda: not alive(pid), timeout_s, interval_s=0.2, what=f"exit of pid {pid}")
    except WaitTimeout:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        wait_until(lambda: not alive(pid), 10, interval_s=0.1, what=f"exit of pid {pid} after SIGKILL")


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by pid (a crash, for fault tests) and wait until it is gone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    wait_until(lambda: not alive(pid), 10, interval_s=0.1, what=f"exit of pid {pid} after SIGKILL")


def log_tail(log_file: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log_file.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
