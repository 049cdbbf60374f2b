"""Read what the evidence check needs from the broker: each event topic's effective configuration and its partitions'
log start offsets (as the auditor: DESCRIBE_CONFIGS and READ)."""

from __future__ import annotations

from kafka import TopicPartition

from services.audit.core.evidence import EVENT_TOPICS, evidence_findings
from services.audit.core.findings import Discrepancy
from shared.kafka import admin_client, describe, kafka_consumer


def check_evidence(bootstrap: str, prefix: str = "", role: str = "auditor") -> list[Discrepancy]:
    names = [prefix + spec.name for spec in EVENT_TOPICS]
    admin = admin_client(bootstrap, role=role, client_id="reelstream-audit")
    try:
        present = set(admin.list_topics())
        described = {
            found["name"][len(prefix) :]: found for found in describe(admin, [n for n in names if n in present])
        }
    finally:
        admin.close()
    reader = kafka_consumer(bootstrap, role=role, group_id=None, client_id="reelstream-audit", enable_auto_commit=False)
    try:
        partitions = [
            TopicPartition(prefix + name, partition)
            for name in described
            for partition in sorted(reader.partitions_for_topic(prefix + name) or ())
        ]
        starts = reader.beginning_offsets(partitions) if partitions else {}
    finally:
        reader.close(autocommit=False)
    log_starts = {(tp.topic[len(prefix) :], tp.partition): offset for tp, offset in starts.items()}
    return evidence_findings(described, log_starts)
