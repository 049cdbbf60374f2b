"""`python -m refwallet --port 8088 --database-url URL --public-key ID=PATH --player ID:BALANCE:CUR`: start the
reference operator wallet (docs/seamless.md); it prints `refwallet: listening on http://HOST:PORT` once it serves."""

from __future__ import annotations

import argparse
import asyncio
import signal
from pathlib import Path

from aiohttp import web

from refwallet.faults import FaultPlan
from refwallet.ledger import Ledger
from refwallet.rules import Player
from refwallet.server import make_app
from seamless.signatures import KeyRing


def _key(text: str) -> tuple[str, bytes]:
    key_id, sep, path = text.partition("=")
    if not sep or not key_id:
        raise argparse.ArgumentTypeError("--public-key takes ID=PATH")
    return key_id, Path(path).read_bytes()


def _player(text: str) -> Player:
    parts = text.split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        raise argparse.ArgumentTypeError("--player takes ID:BALANCE_MINOR:CURRENCY")
    return Player(parts[0], parts[2], int(parts[1]))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m refwallet", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8088, help="0 picks a free port")
    p.add_argument("--database-url", required=True, help="its own database; the ledger lives in schema refwallet")
    p.add_argument("--public-key", type=_key, action="append", default=[], help="ID=PATH of a caller's PEM key")
    p.add_argument("--player", type=_player, action="append", default=[], help="ID:BALANCE_MINOR:CURRENCY, if new")
    p.add_argument("--admin", action="store_true", help="serve /_admin/players and /_admin/faults (tests, demos)")
    for name in FaultPlan.model_fields:
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=FaultPlan.model_fields[name].default)
    return p


async def serve(args: argparse.Namespace) -> None:
    if not args.public_key:
        raise SystemExit("refwallet: no --public-key: every request would be refused")
    plan = FaultPlan(**{name: getattr(args, name) for name in FaultPlan.model_fields})
    ledger = await Ledger.open(args.database_url)
    for player in args.player:
        await ledger.put_player(player, replace=False)
    runner = web.AppRunner(make_app(ledger, KeyRing.from_pems(dict(args.public_key)), plan, admin=args.admin))
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    print(f"refwallet: listening on http://{host}:{port}", flush=True)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
        await ledger.close()


def main() -> None:
    if not __debug__:
        raise SystemExit("refwallet: refusing to run under python -O (its invariants are assertions)")
    asyncio.run(serve(parser().parse_args()))


if __name__ == "__main__":
    main()
