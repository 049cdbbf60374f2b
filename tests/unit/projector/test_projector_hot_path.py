"""The projector's hot path: decode + map equals mapping the decoded envelope, batches guard their offsets, the
collector settings apply only while a projector runs."""

from __future__ import annotations

import gc
from datetime import datetime, timezone

import pytest

from services.projector.adapters.runner import GC_THRESHOLDS, batch_gc
from services.projector.core.batch import Batch
from services.projector.core.decoding import decode_rows
from services.projector.core.mapping import RecordMeta, rows_of
from bench.synthetic.samples import sample_events
from shared.events import broker_time, encode
from shared.invariant import InvariantViolation

START = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
SAMPLES = sample_events(40, START)


def test_decoded_rows_equal_the_rows_of_the_original_envelopes_with_the_broker_time_of_each_record():
    raw = [
        (s.topic, 0, offset, 1_764_504_000_000 + offset // 3, encode(s.envelope)) for offset, s in enumerate(SAMPLES)
    ]
    decoded = decode_rows(raw)
    for (topic, _, offset, timestamp_ms, _), sample, (kind, event_id, rows) in zip(raw, SAMPLES, decoded):
        assert kind == "event" and event_id == sample.envelope.id
        assert rows == rows_of(sample.envelope, RecordMeta(topic, 0, offset, broker_time(timestamp_ms)))


def test_an_undecodable_record_among_good_ones_is_a_dead_letter_naming_the_field():
    raw = [("spin.events", 0, 0, 0, encode(SAMPLES[0].envelope)), ("spin.events", 0, 1, 0, b'{"type": 1}')]
    assert [kind for kind, *_ in decode_rows(raw)] == ["event", "dead"]
    assert decode_rows(raw)[1][1] == "type"


def test_money_beyond_a_postgres_bigint_is_a_dead_letter_not_a_row():
    settled = next(s.envelope for s in SAMPLES if s.envelope.type == "reelstream.spin.settled.v1")
    record = encode(settled).replace(b'"win_minor":%d' % settled.data.win_minor, b'"win_minor":%d' % 2**63)
    assert record != encode(settled)
    assert decode_rows([("spin.events", 0, 0, 0, record)]) == [
        ("dead", "data.win_minor", "Input should be less than or equal to 9223372036854775807")
    ]


def test_a_batch_refuses_offsets_that_go_backwards_within_a_partition():
    batch = Batch()
    batch.add_rows("a", [], "t", 0, 5)
    batch.add_rows("b", [], "t", 1, 2)  # another partition has its own order
    with pytest.raises(InvariantViolation):
        batch.add_rows("c", [], "t", 0, 4)
    assert batch.positions == {("t", 0): 6, ("t", 1): 3}


def test_the_collector_runs_with_the_projector_thresholds_only_while_a_projector_runs():
    before = gc.get_threshold()
    with batch_gc():
        assert gc.get_threshold() == GC_THRESHOLDS
        with batch_gc():  # a rebuild's fill inside a process that also runs a live projector
            assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_threshold() == GC_THRESHOLDS
    assert gc.get_threshold() == before
