"""Writes deploy/grafana/dashboards/reelstream.json (the provisioned dashboard) from the panel list below, so the
panels name the series of shared/observability/metrics.py; tests/unit/deploy checks the file is current."""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "dashboards" / "reelstream.json"
# A variable, not a uid: the dashboard imports into any Grafana and asks which Prometheus to read.
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
DATASOURCE_VARIABLE = {
    "name": "datasource",
    "label": "Prometheus",
    "type": "datasource",
    "query": "prometheus",
    "current": {},
    "hide": 0,
    "refresh": 1,
}

# (title, unit, [(legend, PromQL)])
PANELS = [
    (
        "Throughput: records in per topic",
        "ops",
        [("{{service}} {{topic}}", "sum by (service, topic) (rate(reelstream_records_in_total[1m]))")],
    ),
    (
        "Spins answered per second",
        "ops",
        [("{{game}} {{outcome}}", "sum by (game, outcome) (rate(reelstream_spin_seconds_count[1m]))")],
    ),
    (
        "Spin latency p50 / p99",
        "s",
        [
            ("p50", "histogram_quantile(0.5, sum by (le) (rate(reelstream_spin_seconds_bucket[1m])))"),
            ("p99", "histogram_quantile(0.99, sum by (le) (rate(reelstream_spin_seconds_bucket[1m])))"),
        ],
    ),
    (
        "Consumer lag per partition",
        "short",
        [("{{service}} {{topic}}/{{partition}}", "max by (service, topic, partition) (reelstream_consumer_lag)")],
    ),
    (
        "Rejections by code",
        "ops",
        [("{{service}} {{code}}", "sum by (service, code) (rate(reelstream_rejections_total[5m]))")],
    ),
    (
        "Dead letters by reason",
        "ops",
        [("{{service}} {{reason}}", "sum by (service, reason) (rate(reelstream_dead_letters_total[5m]))")],
    ),
    (
        "Jackpot pool levels (minor units)",
        "short",
        [("{{pool_id}} {{currency}}", "max by (pool_id, currency) (reelstream_pool_level_minor)")],
    ),
    (
        "Wallet liabilities (minor units)",
        "short",
        [("{{currency}}", "sum by (currency) (reelstream_wallet_liability_minor)")],
    ),
    (
        "Transaction commit p99",
        "s",
        [
            (
                "{{service}} {{store}}",
                "histogram_quantile(0.99, sum by (le, service, store) "
                "(rate(reelstream_transaction_commit_seconds_bucket[1m])))",
            )
        ],
    ),
    (
        "Batch latency p99",
        "s",
        [("{{service}}", "histogram_quantile(0.99, sum by (le, service) (rate(reelstream_batch_seconds_bucket[1m])))")],
    ),
    ("Instances ready", "short", [("{{service}}", "sum by (service) (reelstream_ready)")]),
    (
        "Restore duration p99",
        "s",
        [
            (
                "{{service}}",
                "histogram_quantile(0.99, sum by (le, service) (rate(reelstream_restore_seconds_bucket[1h])))",
            )
        ],
    ),
]


def dashboard() -> dict:
    panels = []
    for index, (title, unit, targets) in enumerate(PANELS):
        panels.append(
            {
                "id": index + 1,
                "type": "timeseries",
                "title": title,
                "datasource": DATASOURCE,
                "gridPos": {"h": 8, "w": 12, "x": 12 * (index % 2), "y": 8 * (index // 2)},
                "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                "targets": [
                    {"refId": chr(ord("A") + n), "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}
                    for n, (legend, expr) in enumerate(targets)
                ],
            }
        )
    return {
        "uid": "reelstream",
        "title": "reelstream",
        "schemaVersion": 39,
        "version": 1,
        "editable": False,
        "refresh": "10s",
        "time": {"from": "now-30m", "to": "now"},
        "tags": ["reelstream"],
        "templating": {"list": [DATASOURCE_VARIABLE]},
        "panels": panels,
    }


def render() -> str:
    return json.dumps(dashboard(), indent=2) + "\n"


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render())
