"""The reference wallet's record of how long it took to answer each call: read from a position on, bounded."""

from __future__ import annotations

import pytest

from refwallet.timings import CallTimings


def test_the_calls_after_a_position_are_read_with_the_position_to_read_on_from():
    timings = CallTimings()
    for us in (20_100, 20_400, 35_000):
        timings.record(us)
    assert timings.since(1) == {"since": 1, "next_since": 3, "durations_us": [20_400, 35_000], "dropped": 0}
    assert timings.since(3)["durations_us"] == []


def test_past_its_limit_the_record_keeps_what_it_has_and_counts_the_rest_dropped():
    timings = CallTimings(limit=2)
    for us in (1, 2, 3, 4):
        timings.record(us)
    assert timings.since(0) == {"since": 0, "next_since": 2, "durations_us": [1, 2], "dropped": 2}


def test_a_negative_duration_or_position_is_refused():
    timings = CallTimings()
    with pytest.raises(AssertionError):
        timings.record(-1)
    with pytest.raises(AssertionError):
        timings.since(-1)
