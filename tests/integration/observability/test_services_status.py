"""`services up` and `services status` take a service's state from the process itself (its /ready), not from logs.

Scenario: the wallet's log already holds a ready line from an earlier run. A wallet that exits at start-up is not
reported ready by `services up`, and `services status` says failed. A wallet whose restore takes a few seconds is
seen restoring, then ready once `up` returns; SIGKILLed, it is failed; `services down` leaves it stopped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import orjson
import pytest

from shared.readiness import ready_line
from shared.topic_admin import delete_prefixed, ensure_topics


@pytest.fixture
def state(kafka_bootstrap: str, tmp_path):
    prefix = f"st{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "wallet.log").write_text(f"{ready_line('wallet')}\n")  # an earlier run's line
    env = {
        **os.environ,
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "REELSTREAM_STATE_DIR": str(tmp_path),
        "REELSTREAM_HTTP_PORT": "0",
        "REELSTREAM_LOG_LEVEL": "WARNING",
    }
    yield env
    _cli(env, "services", "down")
    delete_prefixed(kafka_bootstrap, prefix)


def _cli(env: dict[str, str], *args: str, timeout_s: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reelstream.cli", *args], env=env, capture_output=True, text=True, timeout=timeout_s
    )


def _wallet_state(env: dict[str, str]) -> str:
    rows = orjson.loads(_cli(env, "services", "status", "--json").stdout)["services"]
    [wallet] = [row for row in rows if row["service"] == "wallet"]
    return wallet["state"]


def test_a_wallet_that_dies_at_start_is_not_ready_by_an_earlier_runs_log_line_and_status_says_failed(state):
    broken = {**state, "REELSTREAM_WALLET_BATCH_MAX": "not-a-number"}  # the wallet exits on start-up
    result = _cli(broken, "services", "up", "--only", "wallet", "--timeout-s", "60")
    assert result.returncode == 1, result.stdout
    assert "ready" not in result.stdout
    assert "wallet: not ready" in result.stderr
    assert _wallet_state(state) == "failed"


def test_status_shows_restoring_then_ready_from_the_process_then_failed_once_it_is_killed(state):
    slow = {**state, "REELSTREAM_TEST_RESTORE_PAUSE_S": "6"}
    up = subprocess.Popen(
        [sys.executable, "-m", "reelstream.cli", "services", "up", "--only", "wallet", "--timeout-s", "120"],
        env=slow,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = []
    while up.poll() is None:
        seen.append(_wallet_state(state))
        time.sleep(0.3)
    out, err = up.communicate()
    assert up.returncode == 0, err
    assert "restoring" in seen, seen
    assert "ready" not in seen[: seen.index("restoring")], seen
    assert "wallet: ready" in out
    assert _wallet_state(state) == "ready"
    pid = int((state_dir(state) / "services" / "wallet.pid").read_text())
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _wallet_state(state) != "failed" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _wallet_state(state) == "failed"
    _cli(state, "services", "down")
    assert _wallet_state(state) == "stopped"


def state_dir(env: dict[str, str]):
    from pathlib import Path

    return Path(env["REELSTREAM_STATE_DIR"])
