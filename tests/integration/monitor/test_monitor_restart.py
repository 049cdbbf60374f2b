"""Scenario: sample traffic (settled and rejected spins, contributions, wins, reseeds, meters) is on the monitor's
three topics; the monitor reads part of it and is killed (SIGKILL: no flush, no commit); more traffic arrives; the
monitor comes back, restores its tables from their changelogs, re-reads what it had not committed, and then every
table equals a fresh fold of the topics — nothing counted twice, nothing lost."""
from __future__ import annotations

from datetime import datetime, timezone

from reelstream.synthetic.publish import publish
from reelstream.synthetic.samples import sample_events
from reelstream.monitor_process import free_port, get_json, start_monitor
from tests.support.monitor import caught_up, fresh_fold, read_inputs


def test_after_a_kill_mid_run_the_monitor_tables_equal_a_fresh_fold(kafka_bootstrap, fresh_prefix, tmp_path,
                                                                      eventually):
    start = datetime.now(timezone.utc)
    samples = sample_events(1_200, start)
    half = len(samples) // 2
    publish(kafka_bootstrap, samples[:half], lambda topic: fresh_prefix + topic)
    port = free_port()
    monitor = start_monitor(kafka_bootstrap, fresh_prefix, port, tmp_path)
    try:
        monitor.wait_ready(60)
        eventually(lambda: (get_json(port, "/api/ops") or {}).get("records_read", {}).get("spin.events", 0) > 0, 30)
        publish(kafka_bootstrap, samples[half:], lambda topic: fresh_prefix + topic)
        monitor.kill()
        monitor = start_monitor(kafka_bootstrap, fresh_prefix, port, tmp_path)
        monitor.wait_ready(60)
        eventually(lambda: caught_up(kafka_bootstrap, fresh_prefix), 60, 0.5)
        expected = fresh_fold(read_inputs(kafka_bootstrap, fresh_prefix))
        assert sum(v["spins"] for _k, v in expected["cells_1d"]) > 1_000
        eventually(lambda: get_json(port, "/api/tables") == expected, 15, 0.5)
    finally:
        monitor.stop()
