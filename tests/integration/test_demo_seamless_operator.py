"""`make run`'s seamless operator, through the commands the Makefile runs.

Scenario: `reelstream refwallet up` starts the reference wallet on a database of its own and writes the operators file
naming demo-b seamless on it; `services up` with that file starts the seamless saga beside the money services; a short
`reelstream demo` seats one demo-b player among the others. Every bet that player made at the operator's wallet ends in
exactly one win there, and reelstream's ledger wallet recorded nothing of that player. `refwallet down` stops it."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import uuid

import asyncpg
import pytest

from deploy.local.postgres import drop_database
from reelstream.demo.operator_wallet import SEAMLESS_OPERATOR
from reelstream.processes import SEAMLESS_SAGA
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.topics import WALLET_EVENTS
from shared.waits import wait_until
from tests.integration.spin.conftest import SERVICE_ENV, Platform
from tests.support.projector import database_url_for

pytestmark = pytest.mark.integration

MONEY_SERVICES = ("wallet", "jackpot", "spin", SEAMLESS_SAGA)


def _cli(env: dict[str, str], *args: str, timeout_s: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reelstream.cli", *args], env=env, capture_output=True, text=True, timeout=timeout_s
    )


async def _rounds(url: str, player_id: str) -> dict[str, list[str]]:
    """Per round at the operator's wallet, the kinds of its transactions in order."""
    conn = await asyncpg.connect(url, timeout=15)
    try:
        rows = await conn.fetch(
            "SELECT round_id, kind FROM refwallet.transactions WHERE player_id = $1 AND status = 'OK' "
            "ORDER BY position",
            player_id,
        )
    finally:
        await conn.close()
    rounds: dict[str, list[str]] = {}
    for row in rows:
        rounds.setdefault(row["round_id"], []).append(row["kind"])
    return rounds


@pytest.fixture
def local(kafka_bootstrap: str, database_url: str, tmp_path):
    prefix, database = f"t{uuid.uuid4().hex[:12]}.", f"t_{uuid.uuid4().hex}"
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {**os.environ, **SERVICE_ENV, "REELSTREAM_STATE_DIR": str(tmp_path), "REELSTREAM_HTTP_PORT": "0"}
    env |= {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    env.pop("REELSTREAM_OPERATORS_FILE", None)
    yield env, database
    _cli(env, "services", "down")
    _cli(env, "refwallet", "down")
    delete_prefixed(kafka_bootstrap, prefix)
    asyncio.run(drop_database(database_url, database))


def test_the_demo_plays_a_seamless_operators_player_on_the_reference_wallet(local, database_url, tmp_path):
    env, database = local
    started = _cli(env, "refwallet", "up", "--database", database)
    assert started.returncode == 0, started.stderr
    assert (tmp_path / "refwallet" / "reelstream.pem").stat().st_mode & 0o077 == 0
    env["REELSTREAM_OPERATORS_FILE"] = str(tmp_path / "operators.json")
    up = _cli(env, "services", "up", *(f"--only={name}" for name in MONEY_SERVICES), "--timeout-s", "240")
    assert up.returncode == 0, up.stderr

    demo = _cli(env, "demo", "--duration", "12", "--players-per-game", "2")
    assert demo.returncode == 0, demo.stderr
    [player] = set(re.findall(rf"demo-\w+-{SEAMLESS_OPERATOR}-rj\d", demo.stdout))
    assert f"{player}: bets and wins at {SEAMLESS_OPERATOR}'s own wallet" in demo.stdout.replace("\n", " ")

    url = database_url_for(database_url, database)

    def every_bet_won_once() -> dict[str, list[str]] | None:  # the last spin's win may still be on its way
        rounds = asyncio.run(_rounds(url, player))
        return rounds if rounds and all(kinds == ["bet", "win"] for kinds in rounds.values()) else None

    wait_until(every_bet_won_once, 60, 0.5, what=f"each of {player}'s bets won once at the operator's wallet")
    reader = Platform(env["KAFKA_BOOTSTRAP_SERVERS"], env["REELSTREAM_TOPIC_PREFIX"], tmp_path, env)
    ours = reader.read_all(WALLET_EVENTS)
    assert [event.type for event in ours if event.data.player_id == player] == []  # the ledger took nothing

    stopped = _cli(env, "refwallet", "down")
    assert stopped.returncode == 0 and "refwallet: stopping" in stopped.stdout, stopped.stderr
