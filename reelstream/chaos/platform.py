"""The services of a throwaway deployment as processes (wallet, jackpot, spin, projector, monitor): started, watched
for an exit nobody asked for, restarted all at once by SIGTERM or SIGKILL, stopped."""

from __future__ import annotations

from pathlib import Path

import orjson

from reelstream.chaos.campaign_report import Finding
from reelstream.chaos.deployment import Deployment
from reelstream.monitor_process import free_port, start_monitor
from reelstream.processes import ServiceProcess, spawn, stop_all

SERVICES = ("wallet", "jackpot", "spin", "projector", "monitor")
READY_S = 180.0


def last_words(process: ServiceProcess, lines: int = 3) -> str:
    """The end of what a process logged (a traceback's last lines name what stopped it), on one line; a JSON log
    line shows its level, logger and message."""
    tail = [_shown(line.strip()) for line in process.own_log_text().splitlines() if line.strip()][-lines:]
    return " | ".join(tail)[-600:] or "nothing logged"


def _shown(line: str) -> str:
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return line
    if not isinstance(entry, dict) or "message" not in entry:
        return line
    return f"{entry.get('level', '')} {entry.get('logger', '')}: {entry['message']}"


class Platform:
    def __init__(self, deployment: Deployment, log_dir: Path) -> None:
        self.deployment, self.log_dir = deployment, log_dir
        self.monitor_port = free_port()
        self.processes: dict[str, ServiceProcess] = {}
        self.reported: set[int] = set()  # pids whose exit is already a finding

    def _spawn(self, name: str) -> ServiceProcess:
        if name == "monitor":
            settings = self.deployment.settings
            return start_monitor(
                settings.kafka_bootstrap_servers, settings.topic_prefix, self.monitor_port, self.log_dir
            )
        # Static membership: a restarted process takes its partitions back at once, not after the session timeout.
        env = {**self.deployment.env, "REELSTREAM_INSTANCE_ID": f"{name}-0"}
        return spawn(name, env=env, log_dir=self.log_dir)

    def start(self, what: str = "stopped") -> list[Finding]:
        """Start every service and wait until each is ready; a service that is not: a finding (`what` it did)."""
        for name in SERVICES:
            self.processes[name] = self._spawn(name)
        findings = []
        for name, process in self.processes.items():
            try:
                process.wait_ready(READY_S)
            except (RuntimeError, TimeoutError):
                self.reported.add(process.process.pid)
                findings.append(Finding(name, what, last_words(process)))
        return findings

    def stopped(self) -> list[Finding]:
        """Each service that exited on its own since it was last seen running."""
        findings = []
        for name, process in self.processes.items():
            code = process.process.poll()
            if code is not None and process.process.pid not in self.reported:
                self.reported.add(process.process.pid)
                findings.append(Finding(name, "stopped", f"exited with {code}: {last_words(process)}"))
        return findings

    def running(self, name: str) -> bool:
        return name in self.processes and self.processes[name].process.poll() is None

    def restart(self, signal_name: str) -> list[Finding]:
        """Every service stopped by `signal_name` (SIGTERM, or SIGKILL like a crash) and started again."""
        for process in self.processes.values():
            if signal_name == "SIGKILL":
                process.kill()
            else:
                process.stop()
            self.reported.add(process.process.pid)
        return self.start("not back after a restart")

    def stop(self) -> None:
        stop_all(self.processes.values())
