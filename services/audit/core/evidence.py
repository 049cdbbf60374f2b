"""Evidence stays put: every event topic keeps its whole history (log start offset 0 on every partition) and the
configuration shared/topics.py declares. Anything else means records were deleted or retention was changed (only
the break-glass role may), so the audit fails."""

from __future__ import annotations

from collections.abc import Mapping

from services.audit.core.findings import Discrepancy
from shared.kafka import drift
from shared.topics import ALL_TOPICS, TopicSpec

EVENT_TOPICS: tuple[TopicSpec, ...] = tuple(spec for spec in ALL_TOPICS if spec.kind == "event")
LOG_START = "event-log-truncated"
CONFIG = "event-topic-config-drift"


def evidence_findings(
    described: Mapping[str, Mapping], log_starts: Mapping[tuple[str, int], int], specs=EVENT_TOPICS
) -> list[Discrepancy]:
    """`described`: logical name -> shared.kafka.describe's dict; `log_starts`: (logical name, partition) -> the
    partition's log start offset."""
    found = []
    for (topic, partition), start in sorted(log_starts.items()):
        if start != 0:
            found.append(
                Discrepancy(LOG_START, topic, f"partition {partition} starts at offset {start}, not 0: records deleted")
            )
    for spec in specs:
        seen = described.get(spec.name)
        if seen is None:  # not there at all: reading the topics fails on it (services.audit.adapters.topics)
            continue
        for problem in drift(spec, seen["replicas"], seen["partitions"], seen["replicas"], seen["configs"]):
            found.append(Discrepancy(CONFIG, spec.name, problem))
    return found
