"""Scenario: sample traffic (settled and rejected spins, contributions, wins, reseeds, meters) is on the monitor's
three topics, then a skewed stream — a Stjernestøv cell where nothing is ever won — and at the end a jackpot event
whose pools do not open where they closed. The monitor reads part of it and is killed (SIGKILL: no flush, no commit);
it comes back, restores its tables from their changelogs and re-reads what it had not committed. Then every table
equals a fresh fold of the topics — nothing counted twice, nothing lost — and monitor.alerts holds one RTP alert
(that cell, low side) and one drift per pool of the broken event, however often they were sent."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from kafka import TopicPartition

from shared.waits import WaitTimeout

from reelstream.monitor_process import free_port, get_json, start_monitor
from bench.synthetic.publish import publish
from bench.synthetic.samples import Sample, sample_events
from shared.events import decode, derived_id
from shared.events.monitor import PoolDrifted, RtpOutOfBand
from shared.kafka import kafka_consumer
from shared.topics import MONITOR_ALERTS
from tests.support.monitor import caught_up, fresh_fold, read_inputs

SKEWED_CELL = "stjernestoev|50|DKK|op-skewed"


def _skewed(samples: list[Sample], count: int) -> list[Sample]:
    settled = next(s.envelope for s in samples if s.envelope.type == "reelstream.spin.settled.v1")
    nothing = {
        "game": "stjernestoev",
        "currency": "DKK",
        "stake_minor": 50,
        "win_minor": 0,
        "house_win_minor": 0,
        "jackpot_win_minor": 0,
        "contribution_micro": 0,
        "operator_id": "op-skewed",
    }
    return [
        Sample(
            "spin.events",
            settled.model_copy(update={"id": derived_id("skewed", i), "data": settled.data.model_copy(update=nothing)}),
        )
        for i in range(count)
    ]


def _broken_pools(samples: list[Sample]) -> Sample:
    moved = next(s.envelope for s in samples if s.envelope.type == "reelstream.jackpot.contributions-applied.v1")
    movements = tuple(
        m.model_copy(update={"opening_micro": 1, "closing_micro": 1 + m.contributions_micro})
        for m in moved.data.movements
    )
    data = moved.data.model_copy(update={"movements": movements})
    return Sample("jackpot.events", moved.model_copy(update={"id": derived_id("broken"), "data": data}))


def _alerts(bootstrap: str, topic: str) -> list:
    reader = kafka_consumer(bootstrap, group_id=None, enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, 0)
        reader.assign([tp])
        reader.seek_to_beginning(tp)
        end, found = reader.end_offsets([tp])[tp], []
        while reader.position(tp) < end:
            found += [decode(r.value) for batch in reader.poll(timeout_ms=500).values() for r in batch]
        return found
    finally:
        reader.close(autocommit=False)


def _differences(found: dict | None, expected: dict) -> list[str]:
    """Each table and key where the monitor's tables differ from the fresh fold, with both values."""
    found = found or {}
    out = []
    for table in sorted(set(found) | set(expected)):
        mine, theirs = dict(map(_keyed, found.get(table, []))), dict(map(_keyed, expected.get(table, [])))
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                out.append(f"{table}[{key}]: monitor {mine.get(key)} fold {theirs.get(key)}")
    return out


def _keyed(pair: list) -> tuple[str, object]:
    return str(pair[0]), pair[1]


def test_after_a_kill_mid_run_the_monitor_tables_equal_a_fresh_fold_and_alerts_are_the_same(
    kafka_bootstrap, fresh_prefix, tmp_path, eventually
):
    samples = sample_events(1_200, datetime.now(timezone.utc))
    broken = _broken_pools(samples)
    half = len(samples) // 2
    publish(kafka_bootstrap, samples[:half], lambda topic: fresh_prefix + topic)
    port = free_port()
    monitor = start_monitor(kafka_bootstrap, fresh_prefix, port, tmp_path)
    try:
        monitor.wait_ready(60)
        eventually(lambda: (get_json(port, "/api/ops") or {}).get("records_read", {}).get("spin.events", 0) > 0, 30)
        rest = samples[half:] + _skewed(samples, 1_500) + [broken]
        publish(kafka_bootstrap, rest, lambda topic: fresh_prefix + topic)
        monitor.kill()
        monitor = start_monitor(kafka_bootstrap, fresh_prefix, port, tmp_path)
        monitor.wait_ready(60)
        eventually(lambda: caught_up(kafka_bootstrap, fresh_prefix), 60, 0.5)
        expected = fresh_fold(read_inputs(kafka_bootstrap, fresh_prefix))
        assert sum(v["spins"] for _k, v in expected["cells_1d"]) > 2_500
        try:
            eventually(lambda: get_json(port, "/api/tables") == expected, 15, 0.5)
        except WaitTimeout:
            pytest.fail(
                "tables differ from a fresh fold:\n" + "\n".join(_differences(get_json(port, "/api/tables"), expected))
            )
    finally:
        monitor.stop()
    alerts = {a.id: a.data for a in _alerts(kafka_bootstrap, fresh_prefix + MONITOR_ALERTS)}
    rtp = [a for a in alerts.values() if isinstance(a, RtpOutOfBand)]
    assert [(a.cell, a.side) for a in rtp] == [(SKEWED_CELL, "low")]
    assert rtp[0].spins < 1_500 and rtp[0].observed_rtp < rtp[0].par_rtp
    drifts = [a for a in alerts.values() if isinstance(a, PoolDrifted)]
    assert sorted((d.pool_id, d.kind, d.event_id) for d in drifts) == sorted(
        (m.pool_id, "continuity", str(broken.envelope.id)) for m in broken.envelope.data.movements
    )
