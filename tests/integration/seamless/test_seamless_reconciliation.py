"""Reconciliation against the reference wallet: rounds played through the outbox (a bet and its win, a bet that
times out, a bet whose answer is lost, each rolled back) on a real wallet.seamless topic and the wallet's own
PostgreSQL ledger, with the jackpot core's credits of the won round on a real jackpot.events topic, reconcile with no
difference, through the adapter and `reelstream reports reconciliation --operator` (exit 0, JSON); a win's amount
changed by hand in the wallet's ledger is then named by both (exit 1), and a bet deleted from it is named missing there.

What the operator owes: rounds at two stakes, one with a sub-cent breakage and one winning a pool share that rides in
its win call, beside another operator's contribution to the same network: the report's contributions owed are
Σ stake × the network's rate plus the breakage, exactly what jackpot.events credited for the operator's rounds, and the
pool share nets against them; a round settled at the operator whose contribution never reached the pools is then a
difference, in the CLI's JSON (exit 1). The plain report counts the operator's settled rounds beside the ledger's, so
only the other operator's contribution (no wallet settled it) and then the round never credited are differences."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from shared import records
from shared.events import decode_all, encode
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.topics import JACKPOT_EVENTS, WALLET_SEAMLESS

from seamless.reconcile import Kind
from services.jackpot.adapters.history import read_all
from services.seamless_saga.adapters.clients import wallet_client
from services.seamless_saga.adapters.kafka_log import KafkaSeamlessLog
from services.seamless_saga.adapters.outbox import Outbox
from services.seamless_saga.adapters.reconciliation import owed, read_record, reconcile
from services.seamless_saga.core.state import Phase
from tests.support.jackpot import DIAMOND, Network, claim, contribute
from tests.support.proofs import Written, proof_of
from tests.support.seamless import PLAYER
from tests.support.seamless_outbox import OPERATOR, now_message, play_three_rounds, seamless_operator, settled
from tests.support.seamless_saga import debit, sent, settle, wager_id

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def _cli(operators_file: Path, prefix: str, operator: str | None = OPERATOR) -> subprocess.CompletedProcess:
    """`reelstream reports reconciliation` in JSON and micro-units, for `operator` or (None) the plain report."""
    code = "import sys; from reelstream.cli import main; sys.argv[0] = 'reelstream'; main()"
    args = ["reports", "reconciliation", "--format", "json", "--units", "micro"]
    args += ["--operator", operator] if operator is not None else []
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
    code, document = await _report(operators_file, prefix)
    return code, [(row["kind"], row["transaction_id"]) for row in document["seamless_reconciliation"]]


async def _report(operators_file: Path, prefix: str, operator: str | None = OPERATOR) -> tuple[int, dict]:
    done = await asyncio.to_thread(_cli, operators_file, prefix, operator)  # the wallet serves from this event loop
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)


async def _plain(operators_file: Path, prefix: str) -> tuple[int, int]:
    """The plain report's contributions and payouts differences on `DIAMOND`, in micro-units."""
    _, document = await _report(operators_file, prefix, None)
    (row,) = [row for row in document["reconciliation"] if row["network_id"] == DIAMOND.network_id]
    return row["contributions_difference"], row["payouts_difference"]


class Pools:
    """The jackpot core deciding the spin's commands for the rounds, its events written on jackpot.events as the
    jackpot service writes them (signed as its writer)."""

    def __init__(self, make_producer, prefix: str) -> None:
        self.network = Network(DIAMOND)
        self.producer = make_producer()
        self.topic = prefix + JACKPOT_EVENTS

    def send(self, command) -> list[Written]:
        written = []
        for event in self.network.send(command).events:
            key, value = event.key, encode(event)
            written.append(Written(key, value, records.signed_headers("jackpot", JACKPOT_EVENTS, key, value)))
            self.producer.send(self.topic, key=key, value=value, headers=written[-1].headers)
        self.producer.flush(timeout=30)
        return written

    def contribute(self, n: int, stake_minor: int, breakage_micro: int = 0, operator_id: str = OPERATOR) -> None:
        """Round `n`'s contribution as the spin sends it (the network's total by its rates, the breakage beside)."""
        contribution = contribute(DIAMOND, stake_minor=stake_minor, breakage_micro=breakage_micro, player_id=PLAYER)
        self.send(contribution.model_copy(update={"contribution_id": wager_id(n), "operator_id": operator_id}))

    def claim(self, n: int, stake_minor: int, tier: str) -> Written:
        """Round `n`'s claim on `tier`: the JackpotWon record the round's settlement proves its pool share with."""
        claimed = claim(
            DIAMOND, tier=tier, stake_minor=stake_minor, player_id=PLAYER, operator_id=OPERATOR, request_id=wager_id(n)
        )
        (won,) = [
            record for record in self.send(claimed) if isinstance(decode_all(record.value)[0].data, jp.JackpotWon)
        ]
        return won


def _credited(kafka_bootstrap: str, prefix: str) -> int:
    """What jackpot.events credited for `OPERATOR`'s contributions, read off the topic."""
    events = [
        event for record in read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS) for event in decode_all(record.value)
    ]
    applied = [event.data for event in {event.id: event for event in events}.values()]
    return sum(
        item.amount_micro
        for data in applied
        if isinstance(data, jp.ContributionsApplied)
        for item in data.contributions
        if item.operator_id == OPERATOR
    )


async def test_rounds_played_reconcile_to_nothing_and_a_changed_ledger_row_is_named(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path, make_producer
):
    settings, core = seamless_operator(wallet, tmp_path, "hub88")
    operators_file = _operators_file(tmp_path / "operators.json", settings)
    topic = fresh_prefix + WALLET_SEAMLESS
    log = await KafkaSeamlessLog(kafka_bootstrap, topic, f"reelstream-wallet-seamless-{uuid.uuid4().hex}").open()
    client = wallet_client(settings)
    try:
        await play_three_rounds(Outbox(core, core.new_state(0), {OPERATOR: client}, log), wallet)
        Pools(make_producer, fresh_prefix).contribute(1, 100)  # the won round's; the rolled-back ones make none
        assert await reconcile(read_record(kafka_bootstrap, fresh_prefix), OPERATOR, client) == []
        assert await _reported(operators_file, fresh_prefix) == (0, [])

        win_id = await wallet.ledger.pool.fetchval(
            "UPDATE refwallet.transactions SET amount_minor = 2500 WHERE kind = 'win' AND round_id = $1 "
            "RETURNING transaction_id",
            str(wager_id(1)),
        )
        found = await reconcile(read_record(kafka_bootstrap, fresh_prefix), OPERATOR, client)
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
        found = await reconcile(read_record(kafka_bootstrap, fresh_prefix), OPERATOR, client)
        assert (Kind.MISSING_AT_OPERATOR, str(bet_id)) in {(d.kind, d.transaction_id) for d in found}
    finally:
        await client.close()
        await log.close()


async def _won(outbox: Outbox, n: int, stake_minor: int, house_win_minor: int, won: Written | None = None) -> None:
    """Round `n` bet and won (its pool share proven by `won`, the jackpot's record) through the outbox."""
    await outbox.decide(now_message(debit(n, stake_minor, OPERATOR, PLAYER)))
    assert await settled(outbox, n, Phase.ACCEPTED)
    share_minor = 0 if won is None else decode_all(won.value)[0].data.amount_minor
    proofs = None if won is None else (proof_of(won),)
    settlement = settle(n, house_win_minor, share_minor, proofs, player_id=PLAYER).data
    await outbox.decide(now_message(sent(settlement.model_copy(update={"network_id": DIAMOND.network_id}))))
    assert await settled(outbox, n) is Phase.WON


async def test_what_the_operator_owes_is_what_the_pools_credited_for_its_settled_rounds(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path, make_producer
):
    settings, core = seamless_operator(wallet, tmp_path, "hub88")
    operators_file = _operators_file(tmp_path / "operators.json", settings)
    log = await KafkaSeamlessLog(
        kafka_bootstrap, fresh_prefix + WALLET_SEAMLESS, f"reelstream-wallet-seamless-{uuid.uuid4().hex}"
    ).open()
    client = wallet_client(settings)
    pools = Pools(make_producer, fresh_prefix)
    try:
        outbox = Outbox(core, core.new_state(0), {OPERATOR: client}, log)
        pools.contribute(1, 150)  # a claim spin contributes at its bet, then claims
        won = pools.claim(1, 150, "green")
        await _won(outbox, 1, 150, 0, won)
        await _won(outbox, 2, 30, 40)
        pools.contribute(2, 30, breakage_micro=400_000)  # a spin without a claim contributes once settled
        pools.contribute(3, 1000, operator_id="demo-a")  # another operator's player on the same network

        (row,) = owed(read_record(kafka_bootstrap, fresh_prefix), OPERATOR)
        share_minor = decode_all(won.value)[0].data.amount_minor
        credited_micro = _credited(kafka_bootstrap, fresh_prefix)
        assert row["contributions_micro"] == (150 + 30) * DIAMOND.contribution_ppm  # Σ stake × ppm
        assert row["owed_micro"] == (150 + 30) * DIAMOND.contribution_ppm + 400_000
        assert row["owed_micro"] == credited_micro == row["pools_credited_micro"]
        assert (row["contributions_difference_micro"], row["payouts_difference_minor"]) == (0, 0)
        assert (row["jackpot_wins_minor"], row["pools_paid_minor"]) == (share_minor, share_minor)
        # The plain report counts the settled rounds beside the ledger's (none): what stays is demo-a's contribution,
        # which no wallet settled.
        assert await _plain(operators_file, fresh_prefix) == (1000 * DIAMOND.contribution_ppm, 0)

        await _won(outbox, 4, 100, 0)  # settled at the operator; its contribution never reaches the pools
        code, document = await _report(operators_file, fresh_prefix)
        assert (code, document["seamless_reconciliation"]) == (1, [])  # every call agrees; the pools do not
        (reported,) = document["seamless_contributions"]  # --units micro: every amount in exact micro-units
        owed_micro = credited_micro + 100 * DIAMOND.contribution_ppm
        payable_minor = owed_micro // MICRO_PER_MINOR
        assert (reported["network_id"], reported["currency"], reported["rounds"]) == ("diamond-mystery", "EUR", 3)
        assert (reported["owed"], reported["pools_credited"]) == (owed_micro, credited_micro)
        assert (reported["contributions_difference"], reported["payouts_difference"]) == (
            -100 * DIAMOND.contribution_ppm,
            0,
        )
        assert reported["payable"] == payable_minor * MICRO_PER_MINOR
        assert reported["carried"] == owed_micro - payable_minor * MICRO_PER_MINOR
        assert reported["net"] == (payable_minor - share_minor) * MICRO_PER_MINOR
        assert await _plain(operators_file, fresh_prefix) == ((1000 - 100) * DIAMOND.contribution_ppm, 0)
    finally:
        await client.close()
        await log.close()


def test_a_record_on_wallet_seamless_its_owner_did_not_write_stops_the_reading(
    kafka_bootstrap, fresh_prefix, make_producer
):
    """Reconciliation's one reading checks every record as its owner's: one signed by another writer (the wallet's
    key, as a compromised wallet would) is named, and no report is built past it."""
    value = b'{"specversion": "1.0", "type": "reelstream.seamless.bet-decided.v1"}'
    headers = records.signed_headers("wallet", WALLET_SEAMLESS, PLAYER.encode(), value)
    producer = make_producer()
    producer.send(fresh_prefix + WALLET_SEAMLESS, key=PLAYER.encode(), value=value, headers=headers)
    producer.flush(timeout=30)
    with pytest.raises(AssertionError, match=rf"{fresh_prefix}{WALLET_SEAMLESS}|{WALLET_SEAMLESS}\["):
        read_record(kafka_bootstrap, fresh_prefix)
