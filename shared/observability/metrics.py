"""The series every service exports (prometheus-client, the process's default registry): names and labels in one
place, so the dashboard (deploy/grafana) and the tests name the same things."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

_LATENCY_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_LAG_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_RESTORE_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

RECORDS_IN = Counter("reelstream_records_in", "Records consumed", ["service", "topic"])
RECORDS_OUT = Counter("reelstream_records_out", "Records produced (acknowledged or committed)", ["service", "topic"])
HANDLER_SECONDS = Histogram(
    "reelstream_handler_seconds", "Deciding one polled batch in memory (CPU)", ["service"], buckets=_LATENCY_S
)
BATCH_SECONDS = Histogram(
    "reelstream_batch_seconds", "A polled batch from the poll to its outputs written", ["service"], buckets=_LATENCY_S
)
COMMIT_SECONDS = Histogram(
    "reelstream_transaction_commit_seconds",
    "A transaction from its first write to its commit acknowledged",
    ["service", "store"],
    buckets=_LATENCY_S,
)
CONSUMER_LAG = Gauge(
    "reelstream_consumer_lag",
    "Records between the consumer's position and the partition's last "
    "stable offset (read_committed; positions move past transaction markers)",
    ["service", "topic", "partition"],
)
REJECTIONS = Counter("reelstream_rejections", "Refusals written, by code", ["service", "code"])
DEAD_LETTERS = Counter(
    "reelstream_dead_letters", "Records written to a dead-letter topic, by reason", ["service", "reason"]
)
ALERTS = Counter("reelstream_alerts", "Integrity alerts logged (`alert: ...` lines), by kind", ["service", "kind"])
RESTORE_SECONDS = Histogram(
    "reelstream_restore_seconds", "Restoring the state of assigned partitions", ["service"], buckets=_RESTORE_S
)
TAKEOVER_SECONDS = Histogram(
    "reelstream_takeover_seconds",
    "A partition taken over: from its assignment until it is restored and its position reached the end its inputs "
    "had after the restore (the lag probe's reading)",
    ["service"],
    buckets=_RESTORE_S,
)
READY = Gauge("reelstream_ready", "1 when every assigned partition is restored and caught up", ["service"])
POOL_LEVEL_MINOR = Gauge(
    "reelstream_pool_level_minor",
    "Jackpot pool level (minor units, rounded down)",
    ["pool_id", "network_id", "currency"],
)
WALLET_LIABILITY_MINOR = Gauge(
    "reelstream_wallet_liability_minor", "Player balances held by this instance's partitions", ["currency"]
)
WALLET_OLDEST_OPEN_WAGER_AGE_S = Gauge(
    "reelstream_wallet_oldest_open_wager_age_seconds",
    "Seconds since the oldest wager still open (debited, neither settled nor refunded) on this instance's partitions "
    "was debited; 0 when none is open",
)
LOOP_LAG = Histogram(
    "reelstream_event_loop_lag_seconds",
    "How late the event loop ran a timer (a blocked loop)",
    ["service"],
    buckets=_LAG_S,
)
GC_PAUSE = Histogram(
    "reelstream_gc_pause_seconds",
    "Cyclic garbage collections, by generation",
    ["service", "generation"],
    buckets=_LAG_S,
)
STALLS = Counter(
    "reelstream_event_loop_stalls",
    "Event loop stalls of at least the threshold (REELSTREAM_STALL_MS), by cause: gc, code or waiting",
    ["service", "cause"],
)
