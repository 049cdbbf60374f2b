"""The seamless saga as a named service, run the way a person and a supervisor run it.

Scenario: with an operators file naming demo-b seamless on the reference wallet, `reelstream services up` starts the
seamless-saga beside every other service and `services status` shows it ready. Then the saga that `up` started is
killed (SIGKILL, a crash) and started again through the processes API (the integration tests' Platform); status shows
the new one ready and it serves a demo-b player's spin: settled with the operator's balance, one bet and one win in the
operator's ledger. Killed and restarted once more by the same API, it serves the next spin too. (A spin asked while
the saga is down may outlive its bet's deadline and be refused: the end-to-end test covers that.)"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import orjson
import pytest

from deploy.local.postgres import drop_database
from reelstream.background import alive, pid_file
from reelstream.client import Settled
from reelstream.monitor_process import free_port
from reelstream.processes import SEAMLESS_SAGA, stop_all
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.waits import wait_until
from tests.integration.spin.conftest import SERVICE_ENV, Platform, client_for
from tests.support.projector import admin_sql, database_url_for
from tests.support.seamless import LEDGER_OPERATOR, PLAYER, SEAMLESS_OPERATOR, operators_file, round_rows

pytestmark = pytest.mark.integration

RING = f"ka@{LEDGER_OPERATOR}:{uuid.uuid4().hex},kb@{SEAMLESS_OPERATOR}:{uuid.uuid4().hex}"
STAKE_MINOR = 100
UP_TIMEOUT_S = 240


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reelstream.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=UP_TIMEOUT_S + 60,
    )


def _states(env: dict[str, str]) -> dict[str, str]:
    listed = _cli(env, "services", "status", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["service"]: row["state"] for row in orjson.loads(listed.stdout)["services"]}


def _spin(platform: Platform) -> object:
    token = issue_token(RING, PLAYER, time.time_ns() // 1_000_000 + 3_600_000, operator_id=SEAMLESS_OPERATOR)
    with client_for(platform) as client:
        return client.spin(PLAYER, "rising-joker", STAKE_MINOR, "EUR", token, timeout_s=60)


def _kill_the_saga_up_started(state: Path) -> None:
    pid = int(pid_file(state, SEAMLESS_SAGA).read_text())
    os.killpg(pid, signal.SIGKILL)
    wait_until(lambda: not alive(pid), 10, 0.1, what="the killed saga gone")


@pytest.fixture
def deployment(kafka_bootstrap: str, database_url: str, tmp_path):
    prefix, database = f"t{uuid.uuid4().hex[:12]}.", f"t_{uuid.uuid4().hex}"
    ensure_topics(kafka_bootstrap, prefix=prefix)
    asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
    state = tmp_path / "state"
    env = {**os.environ, **SERVICE_ENV, "REELSTREAM_SESSION_KEYS": RING, "REELSTREAM_STATE_DIR": str(state)}
    env |= {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "REELSTREAM_HTTP_PORT": "0"}
    env |= {"DATABASE_URL": database_url_for(database_url, database), "REELSTREAM_MONITOR_PORT": str(free_port())}
    env |= {"REELSTREAM_MONITOR_DATADIR": str(state / "monitor-data")}
    platform = Platform(kafka_bootstrap, prefix, state / "logs", env)
    yield platform, state
    stop_all(platform.services.values())
    _cli(env, "services", "down")
    delete_prefixed(kafka_bootstrap, prefix)
    asyncio.run(drop_database(database_url, database))


async def test_services_up_starts_the_saga_for_a_seamless_operator_and_a_restarted_saga_serves_its_spins(
    wallet, deployment, tmp_path
):
    platform, state = deployment
    platform.env["REELSTREAM_OPERATORS_FILE"] = str(operators_file(tmp_path, wallet.url))

    up = await asyncio.to_thread(_cli, platform.env, "services", "up", "--timeout-s", str(UP_TIMEOUT_S))
    assert up.returncode == 0, up.stderr
    assert f"{SEAMLESS_SAGA}: ready" in up.stdout
    states = await asyncio.to_thread(_states, platform.env)
    assert states == {name: "ready" for name in states} and SEAMLESS_SAGA in states, states

    for kill in (_kill_the_saga_up_started, lambda _state: platform.services[SEAMLESS_SAGA].kill()):
        await asyncio.to_thread(kill, state)
        await asyncio.to_thread(lambda: platform.start(SEAMLESS_SAGA).wait_ready(120))
        assert (await asyncio.to_thread(_states, platform.env))[SEAMLESS_SAGA] == "ready"
        balance_minor = await wallet.balance_minor()
        answer = await asyncio.to_thread(_spin, platform)
        assert isinstance(answer, Settled), answer
        balance_minor += answer.data.win_minor - STAKE_MINOR
        assert answer.data.balance_after_minor == balance_minor == await wallet.balance_minor()
        assert await round_rows(wallet, answer.request_id) == [
            ("bet", "OK", STAKE_MINOR, False),
            ("win", "OK", answer.data.win_minor, False),
        ]
