"""A batch of consumed records folded into staged rows and the next positions, de-duplicated by event id."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from shared.events import Envelope
from shared.invariant import invariant
from services.projector.core.folds import balance_deltas, latest_levels
from services.projector.core.mapping import RecordMeta, Row, rows_of

# A limit on everything: one transaction never carries more than this many records.
MAX_BATCH_RECORDS = 20_000


@dataclass
class Batch:
    """Rows per table for one transaction, plus the next offset of every partition the batch touched."""

    rows: dict[str, list[Row]] = field(default_factory=lambda: defaultdict(list))
    positions: dict[tuple[str, int], int] = field(default_factory=dict)
    records: int = 0
    events: int = 0
    duplicates_in_batch: int = 0
    dead_letters: int = 0
    # (balance deltas, latest pool levels) of every staged row, set by seal(); None: not sealed (or changed since)
    folds: tuple[list[tuple], list[tuple]] | None = None
    _seen: set[Any] = field(default_factory=set)

    def advance(self, meta: RecordMeta) -> None:
        self.advance_to(meta.topic, meta.partition, meta.offset)

    def advance_to(self, topic: str, partition: int, offset: int) -> None:
        """The partition's next offset moves past `offset` (hot path: invariant messages are built only on failure)."""
        key = (topic, partition)
        if offset < self.positions.get(key, offset):
            invariant(False, f"offsets of {key} go backwards")
        self.positions[key] = offset + 1
        self.records += 1
        if self.records > MAX_BATCH_RECORDS:
            invariant(False, "batch larger than MAX_BATCH_RECORDS")

    def add_event(self, env: Envelope[Any], meta: RecordMeta) -> None:
        """Stage an event's rows; a second copy of the same event id inside the batch only moves the position."""
        self.folds = None
        self.advance(meta)
        if env.id in self._seen:
            self.duplicates_in_batch += 1
            return
        self._seen.add(env.id)
        self.events += 1
        for table, row in rows_of(env, meta):
            self.rows[table].append(row)

    def add_rows(self, event_id: Any, rows: list[tuple[str, Row]], topic: str, partition: int, offset: int) -> None:
        """Stage rows mapped by decode_rows (here or in a worker) for one event; same de-duplication as add_event."""
        self.folds = None
        self.advance_to(topic, partition, offset)
        self._stage(event_id, rows)

    def add_packed(
        self, items: list[tuple[Any, list[tuple[str, Row]]]], topic: str, partition: int, offset: int
    ) -> None:
        """Stage the rows of a batch envelope's events (one record, its position moved once), each de-duplicated."""
        self.folds = None
        self.advance_to(topic, partition, offset)
        for event_id, rows in items:
            self._stage(event_id, rows)

    def _stage(self, event_id: Any, rows: list[tuple[str, Row]]) -> None:
        if event_id in self._seen:
            self.duplicates_in_batch += 1
            return
        self._seen.add(event_id)
        self.events += 1
        staged = self.rows
        for table, row in rows:
            staged[table].append(row)

    def add_dead_letter(self, meta: RecordMeta) -> None:
        """An undecodable record (already sent to the DLQ): only the position moves past it."""
        self.advance(meta)
        self.dead_letters += 1

    def seal(self) -> None:
        """Compute the folds of the complete batch now (the runner does it while the previous batch's transaction runs,
        so the writer only sends them); the writer recomputes them over the new events alone when some were not new."""
        self.folds = fold_inputs(self.rows)

    @property
    def row_count(self) -> int:
        return sum(len(rows) for rows in self.rows.values())

    def tables(self) -> list[str]:
        """Staged tables with rows, `events` first."""
        return sorted((t for t, rows in self.rows.items() if rows), key=lambda t: (t != "events", t))


def fold_inputs(rows: dict[str, list[Row]], keep=lambda rows: rows) -> tuple[list[tuple], list[tuple]]:
    """(balance deltas, latest pool levels) of the staged rows that `keep` keeps (all by default)."""
    deltas = balance_deltas(keep(rows.get("ledger_postings", [])))
    movements = keep(rows.get("pool_movements", []))
    if not movements:
        return deltas, []
    position_of = {row[0]: (row[6], row[7]) for row in rows["events"]}
    return deltas, latest_levels(movements, position_of)
