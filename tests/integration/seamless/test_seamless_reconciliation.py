"""Reconciliation against the reference wallet: rounds played through the outbox (a bet and its win, a bet that
times out, a bet whose answer is lost, each rolled back) on a real wallet.seamless topic and the wallet's own
PostgreSQL ledger reconcile with no difference; a row of the wallet's ledger changed by hand is then named, by the
adapter and by `reelstream reports reconciliation --operator` (exit 1, JSON)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from shared.topics import WALLET_SEAMLESS

from seamless.reconcile import Kind
from services.seamless_saga.adapters.clients import wallet_client
from services.seamless_saga.adapters.kafka_log import KafkaSeamlessLog
from services.seamless_saga.adapters.outbox import Outbox
from services.seamless_saga.adapters.reconciliation import reconcile
from tests.support.seamless_outbox import OPERATOR, play_three_rounds, seamless_operator
from tests.support.seamless_saga import wager_id

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def _cli(operators_file: Path, prefix: str) -> subprocess.CompletedProcess:
    code = "import sys; from reelstream.cli import main; sys.argv[0] = 'reelstream'; main()"
    args = ["reports", "reconciliation", "--operator", OPERATOR, "--format", "json"]
    env = os.environ | {"REELSTREAM_OPERATORS_FILE": str(operators_file), "REELSTREAM_TOPIC_PREFIX": prefix}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


async def test_rounds_played_reconcile_to_nothing_and_a_changed_ledger_row_is_named(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path
):
    settings, core = seamless_operator(wallet, tmp_path, "hub88")
    topic = fresh_prefix + WALLET_SEAMLESS
    log = await KafkaSeamlessLog(kafka_bootstrap, topic, f"reelstream-wallet-seamless-{uuid.uuid4().hex}").open()
    client = wallet_client(settings)
    try:
        await play_three_rounds(Outbox(core, core.new_state(0), {OPERATOR: client}, log), wallet)
        assert await reconcile(kafka_bootstrap, fresh_prefix, OPERATOR, client) == []

        win_id = await wallet.ledger.pool.fetchval(
            "UPDATE refwallet.transactions SET amount_minor = 2500 WHERE kind = 'win' AND round_id = $1 "
            "RETURNING transaction_id",
            str(wager_id(1)),
        )
        found = await reconcile(kafka_bootstrap, fresh_prefix, OPERATOR, client)
        assert [(d.kind, d.transaction_id, d.ours, d.theirs) for d in found] == [
            (Kind.AMOUNT_DIFFERS, str(win_id), "amount_minor 250", "amount_minor 2500")
        ]
    finally:
        await client.close()
        await log.close()

    operators_file = tmp_path / "operators.json"
    entry = {"id": OPERATOR, "wallet_mode": "seamless"}
    entry["wallet"] = {"url": wallet.url, "protocol": "hub88", "key_id": settings.key_id}
    entry["wallet"] |= {"private_key_file": settings.private_key_file}
    operators_file.write_text(json.dumps({"operators": [{"id": "demo-a"}, {"id": "demo-b"}, entry]}))
    done = await asyncio.to_thread(_cli, operators_file, fresh_prefix)  # the wallet serves from this loop
    assert done.returncode == 1, done.stderr[-2000:]
    rows = json.loads(done.stdout)["seamless_reconciliation"]
    assert [(row["kind"], row["transaction_id"]) for row in rows] == [("AMOUNT_DIFFERS", str(win_id))]
