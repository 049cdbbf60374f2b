"""A bench phase's stalls come from the services' `stall` log lines (bench/stall_log.py): only those inside
the phase's windows count, torn lines are skipped, and the sites are ranked by the time they blocked."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

from bench.stall_log import stalls_in
from shared.observability.logs import JsonFormatter
from shared.observability.stalls import StallWatch


def _line(at: float, stall_ms: float, gc_ms: float, site: str, cause: str = "code") -> str:
    when = datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds")
    return (
        f'{{"time":"{when}","level":"WARNING","message":"stall","stall_ms":{stall_ms},"gc_ms":{gc_ms},'
        f'"cause":"{cause}","site":"{site}"}}'
    )


def test_the_stalls_of_a_phase_are_those_in_its_windows_summed_by_site():
    text = "\n".join(
        [
            _line(99.0, 500, 0, "a.py:early"),  # before the phase
            _line(100.5, 120, 0, "a.py:decide"),
            _line(101.0, 300, 290, "b.py:collect < a.py:decide", "gc"),
            '{"time": "torn',
            _line(150.0, 200, 0, "a.py:between"),  # between the two rounds
            _line(201.0, 150, 0, "a.py:decide", "waiting"),
            '{"time":"2026-12-03T13:00:00.000+00:00","level":"INFO","message":"ready"}',
        ]
    )
    found = stalls_in(text, [(100.0, 102.0), (200.0, 202.0)])
    assert (found["count"], found["total_ms"], found["max_ms"], found["gc_ms"]) == (3, 570, 300, 290)
    assert [s["site"] for s in found["sites"]] == ["b.py:collect < a.py:decide", "a.py:decide"]
    assert [s["total_ms"] for s in found["sites"]] == [300, 270]
    assert found["by_cause_ms"] == {"code": 120, "gc": 300, "waiting": 150}
    assert stalls_in("", [(0.0, 1.0)])["count"] == 0


def test_what_the_watch_logs_is_what_the_bench_reads(caplog):
    watch = StallWatch("spin", threshold_s=0.1)
    with caplog.at_level(logging.WARNING, logger="reelstream.stalls"):
        watch.noticed(0.25, 0.2, 0.25)
    line = JsonFormatter("spin").format(caplog.records[-1])
    at = caplog.records[-1].created
    found = stalls_in(line, [(at - 1, at + 1)])
    assert (found["count"], found["total_ms"], found["gc_ms"], found["by_cause_ms"]) == (1, 250, 200, {"gc": 250})
