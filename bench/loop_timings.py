"""Where a loop service's time goes during a bench phase, from its own /metrics (shared/observability/metrics.py):
deciding a polled batch, its transaction from first write to commit acknowledged and the whole batch from its poll to
its commit, as the histograms' growth between two scrapes."""

# The histograms: `reelstream_handler_seconds`, `reelstream_transaction_commit_seconds`, `reelstream_batch_seconds`.
# Quantiles are interpolated linearly inside the histogram's buckets, as Prometheus's `histogram_quantile` does, so a
# p99 is as fine as the buckets around it (shared/observability/metrics.py); the mean is exact.

from __future__ import annotations

import math
import urllib.request
from collections.abc import Iterable, Mapping

from prometheus_client.parser import text_string_to_metric_families

from shared.observability.http import listed_endpoints

SERIES = {
    "decide": "reelstream_handler_seconds",
    "commit": "reelstream_transaction_commit_seconds",
    "batch": "reelstream_batch_seconds",
}
SCRAPE_TIMEOUT_S = 2.0
MAX_METRICS_BYTES = 4 * 1024 * 1024  # a service's whole exposition is a few tens of KB

# One histogram: cumulative count per upper bound (seconds, +inf last), and its sum in seconds.
Histogram = dict[str, object]


def urls_by_pid(pids: Iterable[int]) -> dict[int, str]:
    """The /metrics address of each of these processes that announced one (shared/observability/http.py)."""
    wanted = set(pids)
    return {int(entry["pid"]): entry["url"] for entry in listed_endpoints() if int(entry["pid"]) in wanted}


def scrape(url: str) -> dict[str, Histogram]:
    """The three histograms of one process now (summed over their other labels), {} when it does not answer."""
    try:
        with urllib.request.urlopen(f"{url}/metrics", timeout=SCRAPE_TIMEOUT_S) as response:  # noqa: S310 - our own
            text = response.read(MAX_METRICS_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return {}
    return parse(text)


def parse(text: str) -> dict[str, Histogram]:
    """The three histograms in a Prometheus text exposition, each summed over its labels but `le`."""
    wanted = {series: name for name, series in SERIES.items()}
    found: dict[str, dict] = {}
    for family in text_string_to_metric_families(text):
        name = wanted.get(family.name)
        if name is None:
            continue
        histogram = found.setdefault(name, {"buckets": {}, "sum": 0.0})
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                bound = float(sample.labels["le"])
                histogram["buckets"][bound] = histogram["buckets"].get(bound, 0.0) + sample.value
            elif sample.name.endswith("_sum"):
                histogram["sum"] += sample.value
    return found


def grown(before: Mapping[str, Histogram], after: Mapping[str, Histogram]) -> dict[str, Histogram]:
    """What each histogram gained between two scrapes of one process (a restarted process: its `after` whole)."""
    out: dict[str, Histogram] = {}
    for name, late in after.items():
        early = before.get(name, {"buckets": {}, "sum": 0.0})
        buckets = {bound: count - early["buckets"].get(bound, 0.0) for bound, count in late["buckets"].items()}
        total = late["sum"] - early["sum"]
        if any(count < 0 for count in buckets.values()):  # counters went back: a new process, counted from zero
            buckets, total = dict(late["buckets"]), late["sum"]
        out[name] = {"buckets": buckets, "sum": total}
    return out


def added(total: Mapping[str, Histogram], more: Mapping[str, Histogram]) -> dict[str, Histogram]:
    """Two growths of one process's histograms summed (the interleaved rounds of one phase)."""
    out = {name: {"buckets": dict(h["buckets"]), "sum": h["sum"]} for name, h in total.items()}
    for name, histogram in more.items():
        kept = out.setdefault(name, {"buckets": {}, "sum": 0.0})
        for bound, count in histogram["buckets"].items():
            kept["buckets"][bound] = kept["buckets"].get(bound, 0.0) + count
        kept["sum"] += histogram["sum"]
    return out


def quantile(q: float, buckets: Mapping[float, float]) -> float | None:
    """The q-quantile (seconds) of cumulative bucket counts, linear inside its bucket; None without observations."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile is between 0 and 1, not {q}")
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower  # beyond the last finite bound: that bound is all that is known
            inside = count - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = bound, count
    return lower


def summary(histograms: Mapping[str, Histogram]) -> dict[str, dict]:
    """Per series: how many observations, their mean, p50 and p99 in ms (None where there were none)."""
    out = {}
    for name in SERIES:
        histogram = histograms.get(name)
        buckets = histogram["buckets"] if histogram else {}
        count = max(buckets.values(), default=0.0)
        out[name] = {
            "n": int(count),
            "mean_ms": _ms(histogram["sum"] / count) if count else None,
            "p50_ms": _ms(quantile(0.5, buckets)),
            "p99_ms": _ms(quantile(0.99, buckets)),
        }
    return out


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)
