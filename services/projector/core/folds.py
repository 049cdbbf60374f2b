"""Pure folds of newly projected rows into the running tables: balance deltas per account and the latest pool levels."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from services.projector.core.mapping import Row
from services.projector.core.tables import COLUMNS

_P = {name: index for index, name in enumerate(COLUMNS["ledger_postings"])}
_M = {name: index for index, name in enumerate(COLUMNS["pool_movements"])}


_ACCOUNT, _CURRENCY, _AMOUNT, _RECORDED = (_P[name] for name in ("account", "currency", "amount_micro", "recorded_at"))
_M_EVENT, _M_SEQ, _M_POOL, _M_NETWORK, _M_CURRENCY, _M_CLOSING, _M_RECORDED = (
    _M[name] for name in ("event_id", "seq", "pool_id", "network_id", "currency", "closing_micro", "recorded_at")
)


def balance_deltas(postings: Iterable[Row]) -> list[tuple[str, str, int, int, datetime]]:
    """(account, currency, Σ amount_micro, postings, latest recorded_at) per account and currency."""
    totals: dict[tuple[str, str], list[Any]] = {}
    for row in postings:
        key = (row[_ACCOUNT], row[_CURRENCY])
        entry = totals.get(key)
        if entry is None:
            totals[key] = [row[_AMOUNT], 1, row[_RECORDED]]
            continue
        entry[0] += row[_AMOUNT]
        entry[1] += 1
        if row[_RECORDED] > entry[2]:
            entry[2] = row[_RECORDED]
    return [(account, currency, *entry) for (account, currency), entry in totals.items()]


def latest_levels(movements: Iterable[Row], position_of: dict[Any, tuple[int, int]]) -> list[tuple]:
    """(pool_id, network_id, currency, level_micro, recorded_at, event_id): each pool's latest closing, ordered by
    recorded_at, then the event's (partition, offset), then its index in the event."""
    latest: dict[str, Row] = {}
    for row in movements:
        pool = row[_M_POOL]
        current = latest.get(pool)
        if current is None or _later(row, current, position_of):
            latest[pool] = row
    return [
        (pool, row[_M_NETWORK], row[_M_CURRENCY], row[_M_CLOSING], row[_M_RECORDED], row[_M_EVENT])
        for pool, row in latest.items()
    ]


def _later(row: Row, current: Row, position_of: dict[Any, tuple[int, int]]) -> bool:
    """Hot path (a movement per pool per contribution): the position is looked up only when recorded_at ties."""
    at, current_at = row[_M_RECORDED], current[_M_RECORDED]
    if at != current_at:
        return at > current_at
    return (position_of[row[_M_EVENT]], row[_M_SEQ]) > (position_of[current[_M_EVENT]], current[_M_SEQ])
