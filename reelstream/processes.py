"""Start the platform's service processes (each `python -m reelstream.cli services run NAME`), wait for them, stop them:
for `reelstream services up|down`, `make run`, the demo and integration tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from shared import operators
from shared.readiness import ready_line

# Every deployment's services.
SERVICES = ("wallet", "jackpot", "spin", "projector", "monitor")
# Runs where an operator is seamless: elsewhere it would read every wager command and call nobody.
SEAMLESS_SAGA = "seamless-saga"
KNOWN = (*SERVICES, SEAMLESS_SAGA)


def deployment_services(configured: tuple[operators.Operator, ...]) -> tuple[str, ...]:
    """The services a deployment of these operators runs (what `services up` starts)."""
    return (*SERVICES, SEAMLESS_SAGA) if operators.seamless_operators(configured) else SERVICES


def app_module(name: str) -> str:
    """The module whose main() runs service `name` (a service name is a CLI word, a package name has no hyphen)."""
    return f"services.{name.replace('-', '_')}.app"


@dataclass
class ServiceProcess:
    name: str
    process: subprocess.Popen
    log_path: Path
    # Where this process's output starts in the appended log: a restart must not be "ready" by an earlier run's line.
    log_start: int = 0

    def log_text(self) -> str:
        """The whole log: this process's output after the earlier runs appended to the same file."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def own_log_text(self) -> str:
        """What this process wrote (not the earlier runs appended to the same file)."""
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as log:
            log.seek(self.log_start)
            return log.read().decode(errors="replace")

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        self.wait_for_log(re.escape(ready_line(self.name)), timeout_s)

    def wait_ready_by_probe(self, state_dir: Path, timeout_s: float = 60.0) -> str:
        """Until this very process (its pid's endpoint file) answers 200 on /ready; returns its URL. Nothing an
        earlier run left behind counts: not its log lines, not its endpoint file."""
        from shared.observability.http import listed_endpoints

        deadline = time.monotonic() + timeout_s
        state = "starting"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}; log tail:\n{self.own_log_text()[-3000:]}"
                )
            mine = [
                e for e in listed_endpoints({"REELSTREAM_STATE_DIR": str(state_dir)}) if e["pid"] == self.process.pid
            ]
            if mine:
                state = probe_state(mine[0]["url"])
                if state == "ready":
                    return mine[0]["url"]
            time.sleep(0.2)
        raise TimeoutError(
            f"{self.name} not ready within {timeout_s:.0f} s (last: {state}); log tail:\n{self.own_log_text()[-3000:]}"
        )

    def wait_for_log(self, pattern: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        compiled = re.compile(pattern)
        while time.monotonic() < deadline:
            if compiled.search(self.own_log_text()):
                return
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}; log tail:\n{self.log_text()[-3000:]}"
                )
            time.sleep(0.1)
        raise TimeoutError(
            f"{self.name} did not log /{pattern}/ within {timeout_s:.0f} s; log tail:\n{self.log_text()[-3000:]}"
        )

    def release(self) -> None:
        """Let a warm spare (spawned with `standby=True`) run its service."""
        assert self.process.stdin is not None, "only a spare waits for its go"
        self.process.stdin.write(b"go\n")
        self.process.stdin.close()

    def kill(self) -> int:
        """SIGKILL, like a crash: no shutdown hooks, no flush, no offset commit."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        return self.process.wait(timeout=30)

    def stop(self, timeout_s: float = 20.0) -> int:
        """SIGTERM, then SIGKILL if it does not exit in time."""
        return stop_all((self,), timeout_s)[0]

    def terminate(self) -> None:
        """SIGTERM to its process group, when it still runs (a clean stop: shutdown hooks, flush, offset commit)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)

    def reap(self, timeout_s: float) -> int:
        """Its exit code once it is gone, SIGKILLing it when it has not exited within timeout_s."""
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return self.kill()

    def wait_exit(self, timeout_s: float) -> int:
        return self.process.wait(timeout=timeout_s)


def stop_all(services: Iterable[ServiceProcess], timeout_s: float = 20.0) -> list[int]:
    """Stop every one like `ServiceProcess.stop`, all SIGTERMed at once: each shuts down on its own, so stopping N
    services takes as long as the slowest one, not their sum. The exit codes, in the order given."""
    stopping = list(services)
    for service in stopping:
        service.terminate()
    deadline = time.monotonic() + timeout_s
    return [service.reap(max(0.0, deadline - time.monotonic())) for service in stopping]


def probe_state(url: str, timeout_s: float = 2.0) -> str:
    """What a running service says of itself on /ready: ready, restoring (partitions being restored), starting (not
    ready for another reason: joining, catching up) or unresponsive (no answer in time)."""
    try:
        with urllib.request.urlopen(url + "/ready", timeout=timeout_s) as answer:
            return "ready" if answer.status == 200 else "starting"
    except urllib.error.HTTPError as refused:
        body = orjson.loads(refused.read() or b"{}")
        return "restoring" if body.get("restoring") else "starting"
    except (urllib.error.URLError, TimeoutError, ConnectionError, orjson.JSONDecodeError):
        return "unresponsive"


def spawn(
    name: str,
    *,
    env: dict[str, str] | None = None,
    log_dir: Path,
    extra_args: tuple[str, ...] = (),
    standby: bool = False,
    argv: tuple[str, ...] | None = None,
) -> ServiceProcess:
    """Start one service in its own process group, its output appended to log_dir/<name>.log. With `standby` it
    imports its service and waits: `release()` lets it run (a supervisor's warm spare). `argv`: what the interpreter
    runs instead of the CLI's `services run NAME` (a benchmark's stand-in process that announces itself as `name`)."""
    if argv is None and name not in KNOWN:
        raise ValueError(f"unknown service {name!r}; known: {', '.join(KNOWN)}")
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    log = open(log_path, "ab")
    log_start = log.tell()
    process = subprocess.Popen(
        [sys.executable, *(argv or ("-m", "reelstream.cli", "services", "run", name)), *extra_args],
        env={**os.environ, **(env or {}), **({"REELSTREAM_STANDBY": "1"} if standby else {})},
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.PIPE if standby else subprocess.DEVNULL,
        start_new_session=True,
    )
    log.close()
    return ServiceProcess(name, process, log_path, log_start)
