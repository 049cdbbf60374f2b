"""The bench's loop timings read a service's own histograms: what grew between two scrapes, summed over rounds, its
quantiles interpolated inside the buckets as Prometheus does, its mean exact."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Histogram, generate_latest

from bench import loop_timings
from shared.observability import metrics

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


def exposition(observed: dict[str, list[float]]) -> str:
    """A service's /metrics text with the loop's three histograms (names and labels as shared/observability/metrics)."""
    registry = CollectorRegistry()
    commit = Histogram(
        "reelstream_transaction_commit_seconds", "", ["service", "store"], buckets=BUCKETS, registry=registry
    )
    decide = Histogram("reelstream_handler_seconds", "", ["service"], buckets=BUCKETS, registry=registry)
    batch = Histogram("reelstream_batch_seconds", "", ["service"], buckets=BUCKETS, registry=registry)
    for value in observed.get("commit", []):
        commit.labels("spin", "kafka").observe(value)
    for value in observed.get("decide", []):
        decide.labels("spin").observe(value)
    for value in observed.get("batch", []):
        batch.labels("spin").observe(value)
    return generate_latest(registry).decode()


def test_the_series_are_the_ones_the_services_export():
    exported = {metrics.HANDLER_SECONDS._name, metrics.COMMIT_SECONDS._name, metrics.BATCH_SECONDS._name}
    assert set(loop_timings.SERIES.values()) == exported


def test_what_grew_between_two_scrapes_is_summarised_with_an_exact_mean_and_interpolated_quantiles():
    before = loop_timings.parse(exposition({"commit": [0.2] * 50}))
    later = [0.003] * 60 + [0.007] * 39 + [0.04]  # 100 more commits: 60 in (2.5, 5] ms, 39 in (5, 10], 1 in (25, 50]
    after = loop_timings.parse(exposition({"commit": [0.2] * 50 + later, "decide": [0.0005] * 4}))
    summary = loop_timings.summary(loop_timings.grown(before, after))
    assert summary["commit"]["n"] == 100
    assert summary["commit"]["mean_ms"] == pytest.approx(sum(later) / 100 * 1000, abs=0.05)
    assert summary["commit"]["p50_ms"] == pytest.approx(2.5 + 2.5 * 50 / 60, abs=0.05)  # inside (2.5, 5] ms
    assert summary["commit"]["p99_ms"] == pytest.approx(10.0, abs=0.05)  # the 99th of 100 closes (5, 10] ms
    assert summary["decide"] == {"n": 4, "mean_ms": 0.5, "p50_ms": 0.5, "p99_ms": 1.0}
    assert summary["batch"] == {"n": 0, "mean_ms": None, "p50_ms": None, "p99_ms": None}


def test_rounds_add_up_and_a_restarted_process_counts_from_zero():
    first = loop_timings.grown({}, loop_timings.parse(exposition({"batch": [0.03] * 10})))
    restarted_before = loop_timings.parse(exposition({"batch": [0.03] * 10}))
    restarted_after = loop_timings.parse(exposition({"batch": [0.3] * 3}))  # fewer than before: a new process
    second = loop_timings.grown(restarted_before, restarted_after)
    both = loop_timings.summary(loop_timings.added(first, second))
    assert both["batch"]["n"] == 13
    assert both["batch"]["mean_ms"] == pytest.approx((10 * 30 + 3 * 300) / 13, abs=0.05)


def test_a_quantile_beyond_the_last_bound_is_that_bound_and_a_bad_quantile_is_refused():
    buckets = {0.1: 1.0, float("inf"): 10.0}
    assert loop_timings.quantile(0.99, buckets) == 0.1
    assert loop_timings.quantile(0.5, {}) is None
    with pytest.raises(ValueError, match="between 0 and 1"):
        loop_timings.quantile(1.5, buckets)


def test_a_process_that_does_not_answer_gives_no_timings():
    assert loop_timings.scrape("http://127.0.0.1:9") == {}
