"""A monitor process under a deployment's prefix on a port of its own, and its JSON over HTTP (bench and tests)."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

from reelstream.processes import ServiceProcess, spawn
from shared.topics import JACKPOT_EVENTS, JACKPOT_METERS, SPIN_EVENTS

INPUTS = (SPIN_EVENTS, JACKPOT_EVENTS, JACKPOT_METERS)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_monitor(bootstrap: str, prefix: str, port: int, log_dir: Path) -> ServiceProcess:
    """A killed monitor's partitions move on after a short session timeout: restarts in tests stay short."""
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "REELSTREAM_MONITOR_PORT": str(port),
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        "REELSTREAM_MONITOR_DATADIR": str(log_dir / "monitor-data"),
    }
    return spawn("monitor", env=env, log_dir=log_dir)


def get_json(port: int, path: str, timeout_s: float = 5.0):
    """The body of a GET on the monitor, or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout_s) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None
