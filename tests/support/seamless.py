"""The reference wallet for tests: started in the test's event loop on a free port, with a funded test player and
the key the tests sign with; an operators file naming demo-b seamless on it, and a round as its ledger holds it."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from refwallet.faults import FaultPlan, FaultSwitch
from refwallet.ledger import Ledger
from refwallet.rules import Player
from refwallet.server import FAULTS, make_app
from seamless.signatures import KeyRing, Signer

SIGNER = Signer.generate("reelstream-1")
PLAYER = "conformance-player"
START_MINOR = 10_000
LEDGER_OPERATOR, SEAMLESS_OPERATOR = "demo-a", "demo-b"  # the demo operators' names: their topics exist


@dataclass
class RunningWallet:
    url: str
    ledger: Ledger
    faults: FaultSwitch

    async def balance_minor(self, player_id: str = PLAYER) -> int:
        return await self.ledger.pool.fetchval(
            "SELECT balance_minor FROM refwallet.players WHERE player_id = $1", player_id
        )

    def set_faults(self, **plan) -> None:
        self.faults.set(FaultPlan(**plan))


async def start_wallet(database_url: str, ledger: Ledger | None = None) -> tuple[web.AppRunner, RunningWallet]:
    ledger = ledger or await Ledger.open(database_url)
    await ledger.put_player(Player(PLAYER, "EUR", START_MINOR))
    app = make_app(ledger, KeyRing.from_pems({SIGNER.key_id: SIGNER.public_pem()}), FaultPlan(), admin=True)
    runner = web.AppRunner(app, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, RunningWallet(f"http://{host}:{port}", ledger, app[FAULTS])


def operators_file(directory: Path, wallet_url: str) -> Path:
    """demo-a on the ledger, demo-b seamless on the wallet at `wallet_url`: calls time out fast, and a bet may wait out
    a restart of the saga on a loaded machine (a lost answer still refuses and rolls back at once)."""
    key_file = directory / "reelstream.pem"
    key_file.write_bytes(SIGNER.private_pem())
    wallet = {"url": wallet_url, "protocol": "hub88", "key_id": SIGNER.key_id, "private_key_file": str(key_file)}
    wallet |= {"call_timeout_ms": 1_000, "bet_timeout_ms": 30_000, "win_retry_s": 60}
    entries = [{"id": LEDGER_OPERATOR}, {"id": SEAMLESS_OPERATOR, "wallet_mode": "seamless", "wallet": wallet}]
    path = directory / "operators.json"
    path.write_text(json.dumps({"operators": entries}))
    return path


async def round_rows(wallet: RunningWallet, request_id: uuid.UUID) -> list[tuple[str, str, int, bool]]:
    """A spin's round at the wallet: (kind, status, amount, rolled back) of each transaction, in order."""
    rows = await wallet.ledger.pool.fetch(
        "SELECT kind, status, amount_minor, rolled_back FROM refwallet.transactions WHERE round_id = $1 "
        "ORDER BY position",
        str(request_id),
    )
    return [(row["kind"], row["status"], row["amount_minor"], row["rolled_back"]) for row in rows]
