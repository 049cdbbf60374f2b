"""`make run`'s seamless operator: the reference wallet (refwallet/) on this machine, with a database of its own on the
local PostgreSQL, a signing key made once under the state directory (never committed), and the operators file that
names demo-b seamless on it; the demo funds its players there."""

from __future__ import annotations

import os
import re
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import orjson

from reelstream.processes import ServiceProcess, spawn
from seamless.signatures import Signer
from shared import operators

NAME = "refwallet"  # its pid file and log under the state directory, as a service's
SEAMLESS_OPERATOR = "demo-b"  # the demo operator that is seamless (its topics and roles exist as demo-a's do)
KEY_ID = "reelstream-local"
DATABASE = "refwallet"
PROTOCOL = "hub88"
LISTENING = re.compile(r"refwallet: listening on (http://\S+)")
ADMIN_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class WalletFiles:
    """Where the local reference wallet's files live under a state directory."""

    state_dir: Path

    @property
    def key_file(self) -> Path:
        return self.state_dir / NAME / "reelstream.pem"

    @property
    def public_key_file(self) -> Path:
        return self.state_dir / NAME / "reelstream.pub.pem"

    @property
    def operators_file(self) -> Path:
        return self.state_dir / "operators.json"


def operators_document(demo: tuple[operators.Operator, ...], wallet_url: str, key_file: Path) -> dict:
    """The demo operators file's operators, SEAMLESS_OPERATOR's money in the reference wallet at `wallet_url`."""
    wallet = {"url": wallet_url, "protocol": PROTOCOL, "key_id": KEY_ID, "private_key_file": str(key_file)}
    seamless = {"wallet_mode": operators.SEAMLESS, "wallet": wallet}
    return {"operators": [{"id": o.id} | (seamless if o.id == SEAMLESS_OPERATOR else {}) for o in demo]}


def ensure_key(files: WalletFiles) -> None:
    """The key reelstream signs its calls with, made once (the private half readable by its owner alone)."""
    if files.key_file.exists() and files.public_key_file.exists():
        return
    signer = Signer.generate(KEY_ID)
    files.key_file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(files.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as private:
        private.write(signer.private_pem())
    files.public_key_file.write_bytes(signer.public_pem())


async def ensure_database(server_url: str, database: str) -> str:
    """The URL of `database` on the server of `server_url`, created when missing."""
    conn = await asyncpg.connect(server_url, timeout=30)
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", database):
            await conn.execute(f'CREATE DATABASE "{database}"')
    finally:
        await conn.close()
    return server_url.rsplit("/", 1)[0] + "/" + database


def start(files: WalletFiles, database_url: str, timeout_s: float) -> tuple[ServiceProcess, str]:
    """Start the wallet on a free port (admin paths on, for the demo's players) and write the operators file naming
    it; the process and its URL once it serves."""
    argv = ("-m", "refwallet", "--port", "0", "--database-url", database_url, "--admin")
    argv += ("--public-key", f"{KEY_ID}={files.public_key_file}")
    wallet = spawn(NAME, log_dir=files.state_dir / "logs", argv=argv)
    wallet.wait_for_log(LISTENING.pattern, timeout_s)
    found = LISTENING.search(wallet.own_log_text())
    assert found is not None, "the wallet logged its address"
    document = operators_document(operators.load_file(operators.DEMO_FILE), found.group(1), files.key_file)
    files.operators_file.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    return wallet, found.group(1)


def fund(wallet: operators.SeamlessWallet, player_id: str, currency: str, balance_minor: int) -> None:
    """Open (or reset) a player at the reference wallet with a balance, through its admin path."""
    body = orjson.dumps({"currency": currency, "balance_minor": balance_minor})
    request = urllib.request.Request(f"{wallet.url}/_admin/players/{player_id}", data=body, method="PUT")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=ADMIN_TIMEOUT_S):
        pass  # a refusal raises HTTPError
