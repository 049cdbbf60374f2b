"""Row mapping: each event adds its `events` row and its typed rows; batches de-duplicate by event id."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from services.projector.adapters.schema import migrations, schema_name_at
from services.projector.core.batch import Batch, fold_inputs
from services.projector.core.folds import balance_deltas, latest_levels
from services.projector.core.mapping import RecordMeta, mapped_types, rows_of
from bench.synthetic.samples import sample_events
from services.projector.core.tables import COLUMNS
from shared.events import registered_types

START = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
SAMPLES = sample_events(120, START)


def _meta(offset: int, topic: str = "spin.events") -> RecordMeta:
    return RecordMeta(topic, 0, offset, START)


def _batch(samples) -> Batch:
    batch = Batch()
    for offset, sample in enumerate(samples):
        batch.add_event(sample.envelope, _meta(offset, sample.topic))
    return batch


def test_every_event_type_of_the_contract_has_a_mapping():
    events = {name for name, cls in registered_types().items() if cls.KIND == "event"}
    assert events == set(mapped_types())


def test_every_staged_column_exists_in_the_migrations():
    sql = "\n".join(m.sql for m in migrations())
    for table, columns in COLUMNS.items():
        body = re.search(rf"CREATE TABLE {table} \((.*?)\n\);", sql, re.S)
        assert body, table
        declared = re.findall(
            r'^\s+"?([a-z_]+)"?\s+(?:uuid|text|integer|bigint|jsonb|timestamptz|numeric)', body.group(1), re.M
        )
        # Columns added by later migrations come last, in the order they were added.
        declared += re.findall(
            rf"^ALTER TABLE {table} ADD COLUMN ([a-z_]+) (?:uuid|text|integer|bigint|jsonb|timestamptz|numeric)",
            sql,
            re.M,
        )
        assert list(columns) == declared, table


def test_a_settled_spin_adds_its_event_row_and_its_spin_row_with_the_outcome_as_json():
    settled = next(s for s in SAMPLES if s.envelope.type == "reelstream.spin.settled.v1")
    rows = rows_of(settled.envelope, _meta(7))
    assert [table for table, _ in rows] == ["events", "spins"]
    spin = dict(zip(COLUMNS["spins"], rows[1][1]))
    assert spin["request_id"] == settled.envelope.data.request_id
    assert spin["outcome"].startswith("{") and '"board"' in spin["outcome"]
    assert dict(zip(COLUMNS["events"], rows[0][1]))["offset"] == 7


def test_a_settlement_adds_one_posting_row_per_posting_and_they_sum_to_zero():
    settled = next(s for s in SAMPLES if s.envelope.type == "reelstream.wallet.wager-settled.v1")
    postings = [row for table, row in rows_of(settled.envelope, _meta(1)) if table == "ledger_postings"]
    assert len(postings) == len(settled.envelope.data.postings) == 3
    assert sum(row[COLUMNS["ledger_postings"].index("amount_micro")] for row in postings) == 0


def test_a_repeated_event_id_in_one_batch_only_moves_the_position():
    batch = _batch(list(SAMPLES[:10]) + [SAMPLES[0]])
    assert batch.events == 10 and batch.duplicates_in_batch == 1
    assert len(batch.rows["events"]) == 10
    assert batch.positions[(SAMPLES[0].topic, 0)] == 11 or max(batch.positions.values()) == 11


def test_a_dead_letter_moves_the_position_and_adds_no_rows():
    batch = Batch()
    batch.add_dead_letter(_meta(41))
    assert batch.positions == {("spin.events", 0): 42} and batch.row_count == 0 and batch.dead_letters == 1


def test_balance_deltas_add_up_the_postings_per_account_and_currency():
    batch = _batch(SAMPLES)
    deltas = balance_deltas(batch.rows["ledger_postings"])
    assert sum(delta for _, _, delta, _, _ in deltas) == 0
    assert sum(count for *_, count, _ in deltas) == len(batch.rows["ledger_postings"])


def test_the_latest_level_of_a_pool_is_the_closing_of_its_last_movement():
    batch = _batch(SAMPLES)
    position_of = {row[0]: (row[6], row[7]) for row in batch.rows["events"]}
    levels = {row[0]: row[3] for row in latest_levels(batch.rows["pool_movements"], position_of)}
    closing = COLUMNS["pool_movements"].index("closing_micro")
    pool = COLUMNS["pool_movements"].index("pool_id")
    last = {}
    for row in batch.rows["pool_movements"]:
        last[row[pool]] = row[closing]
    assert levels == last


def _movement(event_id: str, seq: int, closing_micro: int, recorded_at: datetime) -> tuple:
    values = {
        "event_id": event_id,
        "seq": seq,
        "pool_id": "green",
        "network_id": "n",
        "currency": "EUR",
        "closing_micro": closing_micro,
        "recorded_at": recorded_at,
    }
    return tuple(values.get(column) for column in COLUMNS["pool_movements"])


def test_movements_recorded_at_the_same_moment_are_ordered_by_their_event_position_then_their_index():
    at = START
    position_of = {"a": (0, 5), "b": (0, 9), "c": (1, 2)}
    same_moment = [_movement("b", 0, 20, at), _movement("b", 1, 21, at), _movement("a", 3, 10, at)]
    assert [row[3] for row in latest_levels(same_moment, position_of)] == [21]
    assert [row[3] for row in latest_levels([_movement("c", 0, 30, at), *same_moment], position_of)] == [30]
    later = [_movement("c", 0, 30, at), _movement("a", 0, 10, datetime(2026, 11, 30, 12, 0, 1, tzinfo=timezone.utc))]
    assert [row[3] for row in latest_levels(later, position_of)] == [10]


def test_a_sealed_batch_carries_the_folds_of_its_rows_until_a_row_is_added():
    batch = _batch(SAMPLES[:60])
    batch.seal()
    assert batch.folds == fold_inputs(batch.rows)
    assert batch.folds[0] and batch.folds[1]
    batch.add_event(SAMPLES[60].envelope, _meta(60, SAMPLES[60].topic))
    assert batch.folds is None


def test_schema_names_sort_by_time_and_are_safe_identifiers():
    early, late = schema_name_at(START), schema_name_at(datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert early < late and re.fullmatch(r"proj_[0-9tz]+", early)
