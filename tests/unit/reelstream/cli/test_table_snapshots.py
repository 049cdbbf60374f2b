"""The main tables at 80 and 160 columns, against committed snapshots (REELSTREAM_UPDATE_SNAPSHOTS=1 rewrites them):
no line wider than the terminal, and every amount shown is shown whole."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from reelstream.commands.jackpot import WIN_COLUMNS, pool_views, win_rows
from reelstream.output.money_rows import as_view
from reelstream.commands.wallet import HISTORY_COLUMNS, history_rows, player_rows
from reelstream.output import Column, Format, Units, View, render_text
from bench.synthetic.spins import play_history, stand_in_lookup
from services.audit.core.audit import run_audit
from services.audit.core.reports import ggr_rows, liability_rows, reconciliation_rows
from services.jackpot.adapters.history import fold_events
from shared import records
from shared.pools import load_pools

SNAPSHOTS = Path(__file__).parent / "snapshots"
# The first 25 jackpot.events records of each partition from a recorded platform run (pools opened, contributions).
RECORDED_JACKPOT = [
    SimpleNamespace(
        **{**row, "value": row["value"].encode(), "headers": records.headers_for("jackpot")},
        key=json.loads(row["value"])["subject"].encode(),  # jackpot.events are keyed by network id
    )
    for row in map(json.loads, (Path(__file__).parent / "jackpot_events.jsonl").read_text().splitlines())
]
AMOUNT = re.compile(r"-?\d[\d,]*\.\d{2} (EUR|DKK)")


@pytest.fixture(scope="module")
def history():
    return play_history(seed=5, players=2, spins_per_player=20)


@pytest.fixture(scope="module")
def audited(history):
    return run_audit(history.records(), lookup=stand_in_lookup)


def _kafka_like(played):
    """Each played record as a consumer reads it: with its key and the headers its writer puts on every record."""
    return [
        SimpleNamespace(
            value=r.value,
            key=r.key,
            headers=records.headers_for("jackpot"),
            timestamp=r.timestamp_ms,
            partition=r.partition,
            offset=r.offset,
        )
        for r in played
    ]


def _views(history, audited) -> dict[str, list[View]]:
    records = history.records()
    jackpot = [r for r in records if r.topic == "jackpot.events"]
    wallet_facts = [f for f in audited.facts.facts if f.topic == "wallet.events"]
    player = wallet_facts[0].data.player_id
    mine = [f.envelope for f in wallet_facts if f.data.player_id == player]
    return {
        "wallet-history": [View("history", HISTORY_COLUMNS, history_rows(mine[-12:], player), title="history")],
        "wallet-players": [
            View(
                "players",
                [Column("player_id", "player"), Column("currency", "currency"), Column("balance", "balance", "money")],
                player_rows(audited.ledger.balances_micro, "", 50),
            )
        ],
        "jackpot-pools": pool_views(fold_events(RECORDED_JACKPOT)),
        "jackpot-wins": [View("wins", WIN_COLUMNS, win_rows(_kafka_like(jackpot)))],
        "reports-ggr": [as_view("ggr", ggr_rows(audited.ledger), ("day", "game", "currency", "ggr"), "ggr")],
        "reports-liability": [
            as_view(
                "liability", liability_rows(audited.pools), ("kind", "pool_id", "operator_id", "level"), "liability"
            )
        ],
        "reports-reconciliation": [
            as_view(
                "reconciliation",
                reconciliation_rows(audited.ledger, audited.pools, load_pools(), audited.seamless.rounds),
                ("network_id", "levels_identity_holds", "contributions_difference", "payouts_difference"),
                "reconciliation",
            )
        ],
    }


NAMES = [
    "wallet-history",
    "wallet-players",
    "jackpot-pools",
    "jackpot-wins",
    "reports-ggr",
    "reports-liability",
    "reports-reconciliation",
]


@pytest.mark.parametrize("width", [80, 160])
@pytest.mark.parametrize("name", NAMES)
def test_table_snapshot(name, width, history, audited):
    views = _views(history, audited)[name]
    text = "\n".join(line.rstrip() for line in render_text(views, Format.table, Units.major, width).splitlines())
    assert all(len(line) <= width for line in text.splitlines()), text
    full = render_text(views, Format.table, Units.major, 10_000)
    shown = set(AMOUNT.findall(text))
    assert shown <= set(AMOUNT.findall(full))
    for amount in (m.group(0) for m in AMOUNT.finditer(text)):
        assert amount in full  # never a cut amount
    path = SNAPSHOTS / f"{name}-{width}.txt"
    if os.environ.get("REELSTREAM_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text + "\n")
    assert path.exists(), f"no snapshot {path.name}: run with REELSTREAM_UPDATE_SNAPSHOTS=1 and review it"
    assert text + "\n" == path.read_text()


def test_debits_show_a_sign_and_amounts_keep_their_currency(history, audited):
    views = _views(history, audited)["wallet-history"]
    text = render_text(views, Format.table, Units.major, 160)
    assert re.search(r"-\d+\.\d{2} (EUR|DKK)", text)


def test_json_field_names_do_not_depend_on_units(history, audited):
    import json

    views = _views(history, audited)["reports-ggr"]
    major, micro = (json.loads(render_text(views, Format.json, units)) for units in (Units.major, Units.micro))
    assert [sorted(row) for row in major["ggr"]] == [sorted(row) for row in micro["ggr"]]
    assert major["units"] == "major" and micro["units"] == "micro"
    assert all(isinstance(row["ggr"], str) for row in major["ggr"])
    assert all(isinstance(row["ggr"], int) for row in micro["ggr"])
