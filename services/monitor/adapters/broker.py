"""Figures the ops page shows that no table holds: consumer lag per group, dead letters by reason, the last audit; read
in a worker thread, bounded, and shown as unreachable rather than stale when the broker is down."""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from shared import dead_letters
from shared.kafka import admin_client, consumer, group_lag

MAX_GROUPS = 50
MAX_DLQ_RECORDS_PER_POLL = 5_000


@dataclass
class BrokerFigures:
    reachable: bool | None = None  # None until the first look
    checked_ms: int = 0
    error: str = ""
    lag_by_group: dict[str, int] = field(default_factory=dict)
    dead_letters: Counter = field(default_factory=Counter)  # (topic, reason) -> count
    _dlq_next: dict = field(default_factory=dict)  # TopicPartition -> next offset to read


def refresh(figures: BrokerFigures, bootstrap: str, prefix: str) -> None:
    """One look at the broker (blocking: run in a thread); on failure keep the counts but mark it unreachable."""
    try:
        admin = admin_client(bootstrap, client_id="reelstream-monitor-admin", role="monitor")
        reader = consumer(bootstrap, group_id=None, request_timeout_ms=6_000, consumer_timeout_ms=500, role="monitor")
        try:
            figures.lag_by_group = _lags(admin, reader, prefix)
            _count_dead_letters(figures, reader, prefix)
        finally:
            reader.close(autocommit=False)
            admin.close()
        figures.reachable, figures.error = True, ""
    except Exception as error:  # noqa: BLE001 - any broker failure is the page's "platform down" state, not a crash
        figures.reachable, figures.error = False, f"{type(error).__name__}: {error}"[:300]
    figures.checked_ms = int(time.time() * 1000)


def _lags(admin, reader, prefix: str) -> dict[str, int]:
    groups = sorted(
        g["group_id"]
        for g in admin.list_groups()
        if g["group_id"].startswith(prefix) and g["group_id"][len(prefix) :].startswith("reelstream-")
    )
    lags = {}
    for group in groups[:MAX_GROUPS]:
        lag = group_lag(admin, reader, group, prefix)
        if lag is not None:
            lags[group[len(prefix) :]] = lag
    return lags


def _count_dead_letters(figures: BrokerFigures, reader, prefix: str) -> None:
    from kafka import TopicPartition

    topics = [t for t in reader.topics() if t.startswith(prefix) and t.endswith(".dlq")]
    partitions = [TopicPartition(t, p) for t in topics for p in sorted(reader.partitions_for_topic(t) or ())]
    if not partitions:
        return
    reader.assign(partitions)
    for tp in partitions:
        reader.seek(tp, figures._dlq_next.get(tp, 0))
    for batch in reader.poll(timeout_ms=1_000, max_records=MAX_DLQ_RECORDS_PER_POLL).values():
        for record in batch:
            # By code, never by the free-text reason: a reason can quote what a hostile writer chose (its writer id),
            # and one series per distinct text would grow without bound.
            code = next((v for k, v in record.headers or () if k == dead_letters.CODE and v), b"(no code)")
            figures.dead_letters[(record.topic[len(prefix) :], code.decode(errors="replace")[:40])] += 1
            figures._dlq_next[TopicPartition(record.topic, record.partition)] = record.offset + 1


def last_audit(path: Path) -> dict | None:
    """The last `reelstream audit` report's verdict, when one was written there."""
    if not path.exists():
        return None
    body = json.loads(path.read_text())
    return {
        "discrepancies": body.get("discrepancy_count"),
        "counts": body.get("counts", {}),
        "written_ms": int(path.stat().st_mtime * 1000),
        "path": str(path),
    }
