"""Writes snapshots as a given commit's code writes them, with the facts behind them, for the upgrade tests
(tests/unit/test_pre_change_snapshots.py): `python -m tests.support.pre_change_snapshots OUT.json`, run in a checkout of
the commit whose snapshots a newer build must restore. Only interfaces both sides share are used."""

from __future__ import annotations

import base64
import importlib
import sys

import orjson

from shared.events import encode
from shared.topics import JACKPOT_SNAPSHOTS, WALLET_SNAPSHOTS
from tests.support.snapshot_log import SnapshotLog

# A spin history: (action, pick) steps of the snapshot tests' History (request, repeat, debit, claim, settle).
SPIN_STEPS = [(0, 1), (0, 2), (0, 5), (2, 0), (0, 7), (3, 0), (2, 1), (4, 0), (1, 0), (0, 3), (2, 0), (4, 1), (0, 4)]
SPIN_CUT = 6  # the image after this many steps is the snapshot restored


def _b64(value: bytes | None) -> str | None:
    return None if value is None else base64.b64encode(value).decode()


def _records(log: SnapshotLog) -> list[dict]:
    return [
        {"key": _b64(r.key), "value": _b64(r.value), "headers": [[n, _b64(v)] for n, v in r.headers]}
        for r in log.records
    ]


def _module(*names: str):
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(names[-1])


def wallet() -> dict:
    from services.wallet.adapters import snapshot
    from tests.unit.wallet.test_wallet_handler import deposit, record, run

    from services.wallet.core.book import WalletBook

    book, events = WalletBook(3), []
    for n in range(1, 6):
        events += [out.value for out in run(book, record(deposit(n, 10 * n)), offset=n) if not out.dead_letter]
    events += [out.value for out in run(book, b"{broken", offset=6) if not out.dead_letter]
    log = SnapshotLog(WALLET_SNAPSHOTS, partition=3)
    log.write("wallet", 0, snapshot.image(book, (5,)), 17, len(events))
    return {"events": [_b64(value) for value in events], "snapshots": _records(log)}


def jackpot() -> dict:
    from services.jackpot.adapters import snapshot
    from tests.support.jackpot import STJERNE, Network, claim, contribute

    network = Network(STJERNE)
    for n in range(12):
        network.send(
            contribute(STJERNE, stake_minor=50 + n)
            if n % 5
            else claim(STJERNE, tier=STJERNE.pools[n % len(STJERNE.pools)].tier, stake_minor=50)
        )
    log = SnapshotLog(JACKPOT_SNAPSHOTS)
    log.write("jackpot", 0, snapshot.image({STJERNE.network_id: network.state}, ()), 12, len(network.events))
    return {"events": [_b64(encode(event)) for event in network.events], "snapshots": _records(log)}


def spin() -> dict:
    suite = _module("tests.unit.spin.adapters.test_book_image", "tests.unit.spin.core.test_book_image")
    from tests.support.spin import CLAIM

    history = suite.History([CLAIM, bytes(32), CLAIM])
    for action, pick in SPIN_STEPS:
        history.step(action, pick)
    image, positions = history.images[SPIN_CUT]
    facts = {topic: [_b64(value) for value in values] for topic, values in history.facts.items()}
    return {"image": _b64(image), "positions": positions, "facts": facts}


def main(out: str) -> None:
    with open(out, "wb") as file:
        file.write(orjson.dumps({"wallet": wallet(), "jackpot": jackpot(), "spin": spin()}, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main(sys.argv[1])
