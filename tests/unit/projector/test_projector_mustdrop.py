"""The projector's rows for must-drop pools: one pool_commitments row per cycle, one pool_drops row per reveal, and
movement rows whose transfer terms keep opening + contributions + seeds + transferred_in - paid - transferred_out
equal to the closing."""

from __future__ import annotations

from datetime import datetime, timezone

from services.projector.core.mapping import RecordMeta, rows_of
from services.projector.core.tables import COLUMNS
from shared.events import jackpot as jp
from tests.support.mustdrop import drop_pools, secrets
from tests.support.jackpot import Network, contribute


POOLS = drop_pools(ceiling_minor=100_005, min_stake_minor=50)
DIAMOND = POOLS.network("diamond-mystery")
START = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def test_commitments_reveals_and_overflow_become_rows():
    net = Network(DIAMOND, secrets())
    net.send(*[contribute(DIAMOND, stake_minor=s) for s in [40] * 300 + [2000] * 10])
    rows = [
        row
        for offset, event in enumerate(net.events)
        for row in rows_of(event, RecordMeta("jackpot.events", 0, offset, START))
    ]
    by_table: dict[str, list] = {}
    for table, row in rows:
        assert len(row) == len(COLUMNS[table]), table
        by_table.setdefault(table, []).append(dict(zip(COLUMNS[table], row)))
    assert len(by_table["pool_commitments"]) == len(net.of_type(jp.DropPointCommitted))
    assert len(by_table["pool_drops"]) == len(net.of_type(jp.DropRevealed)) >= 1
    movements = by_table["pool_movements"]
    for m in movements:
        inflow = m["contributions_micro"] + m["seeds_micro"] + m["transferred_in_micro"]
        assert m["opening_micro"] + inflow - m["paid_micro"] - m["transferred_out_micro"] == m["closing_micro"]
    overflow = sum(m["transferred_out_micro"] for m in movements if m["pool_id"] == "dm-drop")
    assert overflow > 0, "300 non-qualifying wagers of 0.04 cents overflow a 5-cent room"
