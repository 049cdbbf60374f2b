"""The monitor's faust tables (in-memory store, one compacted changelog each, windows over broker time) and how a
planned batch is applied to them. Every table uses the key partitioner for its changelog: a key's writes stay in
order on one changelog partition whichever input partition they came from, so recovery ends at its last value."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import faust

from services.monitor.core.plan import PLAIN_TABLES, WINDOW_TABLES, Planned

CHANGELOG_PARTITIONS = 1


class BrokerTime(faust.Record, serializer="json"):
    """What the window tables are relative to: a group's broker time (LogAppendTime), in seconds."""

    at: float


@dataclass(frozen=True)
class _At:
    """The event the window wrapper reads its time from: one per group of facts in a batch (not the stream's
    current event, which in a `take()` batch is its last)."""

    value: BrokerTime
    message: Any = None


@dataclass
class MonitorTables:
    plain: dict[str, Any] = field(default_factory=dict)
    windowed: dict[str, Any] = field(default_factory=dict)

    def read(self, table: str, key: str) -> dict | None:
        return self.plain[table].get(key) or None

    def apply(self, planned: Planned) -> Planned:
        for update in planned.updates:
            if update.bucket_ms is None:
                table = self.plain[update.table]
                table[update.key] = update.op(table.get(update.key) or None)
                continue
            at = _At(BrokerTime(at=update.bucket_ms / 1000))
            self.windowed[update.table][update.key].apply(
                lambda current, _value, op=update.op: op(current or None), None, event=at
            )
        return planned

    def faust_tables(self) -> list[Any]:
        """The faust tables behind the plain tables and the window wrappers (what writes a changelog)."""
        return [*self.plain.values(), *(wrapper.table for wrapper in self.windowed.values())]

    def dump(self) -> dict[str, dict]:
        """Every table as the fresh fold keys it (window tables by (key, window start ms))."""
        out = {name: {key: value for key, value in table.items() if value} for name, table in self.plain.items()}
        for name, wrapper in self.windowed.items():
            out[name] = {
                (key, round(window[0] * 1000)): value for (key, window), value in wrapper.table.data.items() if value
            }
        return out


def declare_tables(app: faust.App) -> MonitorTables:
    options = dict(default=dict, use_partitioner=True, partitions=CHANGELOG_PARTITIONS)
    tables = MonitorTables()
    for name in PLAIN_TABLES:
        tables.plain[name] = app.Table(name, help=f"monitor {name}", **options)
    for name, spec in WINDOW_TABLES.items():
        table = app.Table(name, help=f"monitor {name} windows", **options)
        expires = timedelta(seconds=spec.keep_s)
        windowed = (
            table.tumbling(spec.size_s, expires=expires)
            if spec.step_s == spec.size_s
            else table.hopping(spec.size_s, spec.step_s, expires=expires)
        )
        tables.windowed[name] = windowed.relative_to_field(BrokerTime.at)
    return tables
