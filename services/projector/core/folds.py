"""Pure folds of newly projected rows into the running tables: balance deltas per account and the latest pool levels."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from services.projector.core.mapping import Row
from services.projector.core.tables import COLUMNS

_P = {name: index for index, name in enumerate(COLUMNS["ledger_postings"])}
_M = {name: index for index, name in enumerate(COLUMNS["pool_movements"])}


def balance_deltas(postings: Iterable[Row]) -> list[tuple[str, str, int, int, datetime]]:
    """(account, currency, Σ amount_micro, postings, latest recorded_at) per account and currency."""
    totals: dict[tuple[str, str], list[Any]] = {}
    for row in postings:
        key = (row[_P["account"]], row[_P["currency"]])
        entry = totals.setdefault(key, [0, 0, row[_P["recorded_at"]]])
        entry[0] += row[_P["amount_micro"]]
        entry[1] += 1
        entry[2] = max(entry[2], row[_P["recorded_at"]])
    return [(account, currency, *entry) for (account, currency), entry in totals.items()]


def latest_levels(movements: Iterable[Row], position_of: dict[Any, tuple[int, int]]) -> list[tuple]:
    """(pool_id, network_id, currency, level_micro, recorded_at, event_id): each pool's latest closing, ordered by
    recorded_at, then the event's (partition, offset), then its index in the event."""
    latest: dict[str, tuple[tuple, Row]] = {}
    for row in movements:
        order = (row[_M["recorded_at"]], *position_of[row[_M["event_id"]]], row[_M["seq"]])
        pool = row[_M["pool_id"]]
        if pool not in latest or order > latest[pool][0]:
            latest[pool] = (order, row)
    return [
        (pool, row[_M["network_id"]], row[_M["currency"]], row[_M["closing_micro"]], row[_M["recorded_at"]],
         row[_M["event_id"]])
        for pool, (_, row) in latest.items()
    ]
