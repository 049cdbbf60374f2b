"""The reference wallet for tests: started in the test's event loop on a free port, with a funded test player and
the key the tests sign with."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from refwallet.faults import FaultPlan, FaultSwitch
from refwallet.ledger import Ledger
from refwallet.rules import Player
from refwallet.server import FAULTS, make_app
from seamless.signatures import KeyRing, Signer

SIGNER = Signer.generate("reelstream-1")
PLAYER = "conformance-player"
START_MINOR = 10_000


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
