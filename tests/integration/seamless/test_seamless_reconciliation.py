"""Reconciliation against the reference wallet: rounds played through the outbox (a bet and its win, a bet that
times out, a bet whose answer is lost, each rolled back) on a real wallet.seamless topic and the wallet's own
PostgreSQL ledger reconcile with no difference, through the adapter and `reelstream reports reconciliation
--operator` (exit 0, JSON); a win's amount changed by hand in the wallet's ledger is then named by both (exit 1), and
a bet deleted from it is named missing there."""

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


def _operators_file(path: Path, settings) -> Path:
    """The operators file the CLI reads: the demo operators and `OPERATOR` on the reference wallet."""
    entry = {"id": OPERATOR, "wallet_mode": "seamless"}
    entry["wallet"] = {"url": settings.url, "protocol": settings.protocol, "key_id": settings.key_id}
    entry["wallet"] |= {"private_key_file": settings.private_key_file}
    path.write_text(json.dumps({"operators": [{"id": "demo-a"}, {"id": "demo-b"}, entry]}))
    return path


async def _reported(operators_file: Path, prefix: str) -> tuple[int, list[tuple[str, str]]]:
    """The CLI's exit code and (kind, transaction id) of each difference it names, in JSON."""
    done = await asyncio.to_thread(_cli, operators_file, prefix)  # the wallet serves from this event loop
    assert done.returncode in (0, 1), done.stderr[-2000:]
    rows = json.loads(done.stdout)["seamless_reconciliation"]
    return done.returncode, [(row["kind"], row["transaction_id"]) for row in rows]


async def test_rounds_played_reconcile_to_nothing_and_a_changed_ledger_row_is_named(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path
):
    settings, core = seamless_operator(wallet, tmp_path, "hub88")
    operators_file = _operators_file(tmp_path / "operators.json", settings)
    topic = fresh_prefix + WALLET_SEAMLESS
    log = await KafkaSeamlessLog(kafka_bootstrap, topic, f"reelstream-wallet-seamless-{uuid.uuid4().hex}").open()
    client = wallet_client(settings)
    try:
        await play_three_rounds(Outbox(core, core.new_state(0), {OPERATOR: client}, log), wallet)
        assert await reconcile(kafka_bootstrap, fresh_prefix, OPERATOR, client) == []
        assert await _reported(operators_file, fresh_prefix) == (0, [])

        win_id = await wallet.ledger.pool.fetchval(
            "UPDATE refwallet.transactions SET amount_minor = 2500 WHERE kind = 'win' AND round_id = $1 "
            "RETURNING transaction_id",
            str(wager_id(1)),
        )
        found = await reconcile(kafka_bootstrap, fresh_prefix, OPERATOR, client)
        assert [(d.kind, d.transaction_id, d.ours, d.theirs) for d in found] == [
            (Kind.AMOUNT_DIFFERS, str(win_id), "amount_minor 250", "amount_minor 2500")
        ]
        assert await _reported(operators_file, fresh_prefix) == (1, [("AMOUNT_DIFFERS", str(win_id))])

        # The bet whose answer was lost, gone from the wallet's list while its rollback stays: a stake returned
        # against a bet the operator does not hold.
        bet_id = await wallet.ledger.pool.fetchval(
            "DELETE FROM refwallet.transactions WHERE kind = 'bet' AND round_id = $1 RETURNING transaction_id",
            str(wager_id(3)),
        )
        found = await reconcile(kafka_bootstrap, fresh_prefix, OPERATOR, client)
        assert (Kind.MISSING_AT_OPERATOR, str(bet_id)) in {(d.kind, d.transaction_id) for d in found}
    finally:
        await client.close()
        await log.close()
