"""The chaos run's figures from its recorded timings: nearest-rank percentiles, the requests in flight across a
fault, and those clear of every fault's window."""

from __future__ import annotations

from reelstream.chaos import metrics


def test_percentiles_are_nearest_rank_and_none_without_values():
    values = [float(n) for n in range(1, 101)]
    assert metrics.percentile(values, 0.5) == 50.0
    assert metrics.percentile(values, 0.99) == 99.0
    assert metrics.percentile([], 0.99) is None


def test_spread_leaves_out_what_was_not_measured():
    assert metrics.spread([0.2, None, 0.4], 0.5) == {"p50_s": 0.2, "max_s": 0.4}
    assert metrics.spread([None], 0.5, 0.99) == {"p50_s": None, "p99_s": None, "max_s": None}


def test_in_flight_are_the_requests_invoked_before_the_fault_and_answered_after_it():
    timings = [(1.0, 2.0), (4.0, 7.0), (4.5, None), (6.0, 6.5)]
    assert metrics.in_flight(timings, 5.0) == [3.0]


def test_fault_free_requests_overlap_no_fault_window():
    timings = [(1.0, 2.0), (4.0, 7.0), (12.0, 12.5), (14.0, None)]
    assert metrics.clear_of(timings, [(5.0, 10.0)]) == [1.0, 0.5]
