"""A batch of facts → the table updates it makes, and the alerts they raise (pure; the faust app and the fresh
fold both apply these updates, so a rebuilt table equals a fresh fold of the events)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from services.monitor.core import fold
from services.monitor.core.facts import MeterFact, MovementFact, RejectionFact, SpinFact, WinFact
from services.monitor.core.par import ParFigures
from services.monitor.core.windows import WINDOWS, WindowSpec

Read = Callable[[str, str], dict | None]  # (table, key) -> the table's current value (plain tables only)
WINDOW_TABLES: dict[str, WindowSpec] = {f"cells_{spec.name}": spec for spec in WINDOWS}
PLAIN_TABLES = ("copies", "rtp_test", "rejections", "levels", "wins", "pools")


@dataclass(frozen=True)
class Update:
    """Set table[key] = op(table[key]); for a window table, in every window holding the instant `bucket_ms`."""

    table: str
    key: str
    op: Callable[[dict | None], dict]
    bucket_ms: int | None = None


@dataclass
class Planned:
    updates: list[Update] = field(default_factory=list)
    # Filled while the updates are applied: (fact, Crossing) of the RTP test, (fact, kind, expected, found) of pools.
    crossings: list = field(default_factory=list)
    drifts: list = field(default_factory=list)


def _grouped(facts: Iterable[Any], key: Callable[[Any], Any]) -> dict[Any, list]:
    groups: dict[Any, list] = defaultdict(list)
    for fact in facts:
        groups[key(fact)].append(fact)
    return groups


def plan_spin_events(read: Read, facts: list[SpinFact | RejectionFact], pars: dict[str, ParFigures]) -> Planned:
    planned = Planned()
    kept: list = []
    for partition, group in _grouped(facts, lambda f: f.at.partition).items():
        copies, fresh = fold.drop_copies(read("copies", str(partition)), group)
        planned.updates.append(Update("copies", str(partition), lambda _v, c=copies: c))
        kept.extend(fresh)
    spins = [fact for fact in kept if isinstance(fact, SpinFact)]
    for cell, group in _grouped(spins, lambda f: f.cell).items():
        par = pars.get(group[0].game)
        if par is not None:
            planned.updates.append(Update("rtp_test", cell, _tested(group, par, planned)))
    for table, spec in WINDOW_TABLES.items():
        for (cell, bucket), group in _grouped(spins, lambda f: (f.cell, spec.bucket_ms(f.at.broker_ms))).items():
            planned.updates.append(Update(table, cell, lambda v, g=group: fold.add_spins(v, g), bucket))
    rejections = [fact for fact in kept if isinstance(fact, RejectionFact)]
    for code, group in _grouped(rejections, lambda f: f.code).items():
        planned.updates.append(Update("rejections", code, lambda v, g=group: fold.count_rejections(v, g)))
    return planned


def _tested(group: list[SpinFact], par: ParFigures, planned: Planned) -> Callable[[dict | None], dict]:
    def op(value: dict | None) -> dict:
        state, crossings = fold.test_cell(value, group, par)
        planned.crossings.extend(crossings)
        return state

    return op


def plan_meters(facts: list[MeterFact]) -> Planned:
    return Planned(
        [
            Update("levels", pool, lambda v, g=group: fold.set_meter(v, g))
            for pool, group in _grouped(facts, lambda f: f.pool_id).items()
        ]
    )


def plan_jackpot_events(wins: list[WinFact], movements: list[MovementFact]) -> Planned:
    planned = Planned(
        [
            Update("wins", network, lambda v, g=group: fold.add_wins(v, g))
            for network, group in _grouped(wins, lambda f: f.network_id).items()
        ]
    )
    for pool, group in _grouped(movements, lambda f: f.pool_id).items():
        planned.updates.append(Update("pools", pool, _booked(group, planned)))
    return planned


def _booked(group: list[MovementFact], planned: Planned) -> Callable[[dict | None], dict]:
    def op(value: dict | None) -> dict:
        state, drifts = fold.book_pool(value, group)
        planned.drifts.extend(drifts)
        return state

    return op


class MonitorFold:
    """Every table as plain dicts (window tables keyed by (key, window start ms)): the fresh fold of the events."""

    def __init__(self) -> None:
        self.tables: dict[str, dict] = {name: {} for name in (*PLAIN_TABLES, *WINDOW_TABLES)}

    def read(self, table: str, key: str) -> dict | None:
        return self.tables[table].get(key)

    def apply(self, planned: Planned) -> Planned:
        for update in planned.updates:
            table = self.tables[update.table]
            if update.bucket_ms is None:
                table[update.key] = update.op(table.get(update.key))
                continue
            for start in WINDOW_TABLES[update.table].starts_ms(update.bucket_ms):
                table[(update.key, start)] = update.op(table.get((update.key, start)))
        return planned
