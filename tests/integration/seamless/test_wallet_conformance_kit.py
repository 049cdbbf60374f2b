"""The conformance kit against the reference wallet passes every case, in both protocols; against a deliberately broken
wallet (one that takes every bet as new) it fails and names the cases. Through the CLI, with the wallet started by its
own entry point, it passes too, and it refuses to run without a named test player."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from refwallet.ledger import Ledger
from reelstream.conformance.wallet import CASES, Kit, verify_wallet
from seamless.client import WalletClient
from seamless.port import AnyCall, Answered, BetCall
from seamless.protocols import PROTOCOLS
from shared.waits import wait_until
from tests.support.seamless import PLAYER, SIGNER, start_wallet

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
START_S = 30


class ForgetfulLedger(Ledger):
    """Deliberately broken: every bet is taken as a new one, its repeats included."""

    async def apply(self, call: AnyCall) -> Answered:
        if not isinstance(call, BetCall):
            return await super().apply(call)
        fresh = call.model_copy(update={"request_id": uuid.uuid4(), "transaction_id": uuid.uuid4()})
        answer = await super().apply(fresh)
        return answer.model_copy(update={"request_id": call.request_id})


async def run_kit(url: str, protocol: str) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    async with WalletClient(url, PROTOCOLS[protocol], SIGNER, timeout_s=5) as client:
        failed = await verify_wallet(
            Kit(client, PLAYER, "EUR", 100), lambda name, problems: seen.update({name: problems})
        )
    assert failed == sum(bool(problems) for problems in seen.values())
    return seen


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_the_reference_wallet_passes_every_case(wallet, protocol):
    seen = await run_kit(wallet.url, protocol)
    assert list(seen) == [name for name, _ in CASES]
    assert {name: problems for name, problems in seen.items() if problems} == {}
    assert await wallet.balance_minor() == 10_000, "the kit leaves the balance where it found it"


async def test_a_wallet_that_applies_a_repeated_bet_again_fails_naming_the_cases(wallet_database):
    runner, broken = await start_wallet(wallet_database, ledger=await Ledger.open(wallet_database))
    broken.ledger.__class__ = ForgetfulLedger
    try:
        seen = await run_kit(broken.url, "hub88")
    finally:
        await runner.cleanup()
        await broken.ledger.close()
    failed = {name for name, problems in seen.items() if problems}
    assert {"bet repeated", "bet retried under a new request id"} <= failed
    assert "balance" not in failed
    assert any("balance" in problem for problem in seen["bet repeated"])


def _cli(*args: str) -> subprocess.CompletedProcess:
    code = "import sys; from reelstream.cli import main; sys.argv[0] = 'reelstream'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "contract", "verify-wallet", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_cli_passes_against_the_wallet_its_entry_point_starts(wallet_database, tmp_path):
    (tmp_path / "public.pem").write_bytes(SIGNER.public_pem())
    (tmp_path / "private.pem").write_bytes(SIGNER.private_pem())
    log = tmp_path / "refwallet.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "refwallet",
                "--port",
                "0",
                "--database-url",
                wallet_database,
                "--public-key",
                f"{SIGNER.key_id}={tmp_path / 'public.pem'}",
                "--player",
                f"{PLAYER}:10000:EUR",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=os.environ.copy(),
        )
    try:
        line = wait_until(
            lambda: next((x for x in log.read_text().splitlines() if "listening on" in x), None),
            START_S,
            0.1,
            what="the reference wallet's listening line",
        )
        url = line.rsplit(" ", 1)[1]
        keys = ["--private-key", str(tmp_path / "private.pem"), "--key-id", SIGNER.key_id]
        passed = _cli("--url", url, "--player", PLAYER, *keys)
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert f"{len(CASES)} passed, 0 failed" in passed.stdout
        refused = _cli("--url", url, *keys)
        assert refused.returncode == 2
        assert "named test player" in refused.stdout + refused.stderr
    finally:
        server.terminate()
        server.wait(timeout=10)
