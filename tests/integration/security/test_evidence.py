"""Evidence stays put, through the real broker: on the live event topics every role but break-glass is refused a
configuration change and DeleteRecords (admin included), and what break-glass does to an event topic fails the next
audit (log start offset not 0, configuration drifted from shared/topics.py).

The probes on live topics change nothing even where allowed: the configuration sent is the declared one, and the
records deleted are those before offset 0 (none).
"""

from __future__ import annotations

import time

import pytest
from kafka import TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType
from kafka.errors import KafkaError

from services.audit.adapters.runner import audit_platform
from services.audit.core.evidence import CONFIG, EVENT_TOPICS, LOG_START
from services.audit.core.scope import Scope
from shared.config import load_settings
from shared.kafka import admin_client, describe, ensure_topics, expected_configs, producer
from shared.roles import BREAK_GLASS, ROLE_NAMES
from shared.topics import WALLET_EVENTS, spec

pytestmark = pytest.mark.integration


def _refusals(bootstrap: str, role: str, topic: str, configs: dict[str, str], before: int) -> tuple[bool, bool]:
    admin = admin_client(bootstrap, role=role)
    try:
        change = ConfigResource(ConfigResourceType.TOPIC, topic, configs)
        config_refused = admin.alter_configs([change], raise_on_unknown=False)["topic"][topic] != "OK"
        try:
            admin.delete_records({TopicPartition(topic, 0): before})
            delete_refused = False
        except KafkaError:
            delete_refused = True
        return config_refused, delete_refused
    finally:
        admin.close()


def _until_described(bootstrap: str, topic: str, name: str, value: str, timeout_s: float = 30.0) -> None:
    """Wait until the broker describes the topic's config as changed: the controller acknowledges a change before
    every broker has applied it, and the audit reads what the broker describes."""
    admin = admin_client(bootstrap, role="admin")
    try:
        deadline = time.monotonic() + timeout_s
        while describe(admin, [topic])[0]["configs"].get(name) != value:
            assert time.monotonic() < deadline, f"{topic} {name} still not {value} after {timeout_s} s"
            time.sleep(0.2)
    finally:
        admin.close()


def test_on_the_live_event_topics_only_break_glass_may_alter_configs_or_delete_records(
    secured, every_role, break_glass
):
    admin = admin_client(secured, role="admin")
    try:
        ensure_topics(admin, EVENT_TOPICS, replication_factor=1)
    finally:
        admin.close()
    for topic in EVENT_TOPICS:
        declared = expected_configs(topic, 1)  # what it has already: nothing changes where the change is allowed
        for role in ROLE_NAMES:
            refused = _refusals(secured, role, topic.name, declared, before=0)
            assert refused == ((False, False) if role == BREAK_GLASS else (True, True)), (topic.name, role)


def test_what_break_glass_does_to_an_event_topic_fails_the_next_audit(secured, deployment, break_glass):
    settings = load_settings({"KAFKA_BOOTSTRAP_SERVERS": secured, "REELSTREAM_TOPIC_PREFIX": deployment})
    clean = audit_platform(settings, Scope(), with_projection=False)
    assert not [d for d in clean.discrepancies if d.check in (CONFIG, LOG_START)]

    topic = deployment + WALLET_EVENTS
    writer = producer(secured, role="admin")
    for index in range(3):
        writer.send(topic, key=b"p-1", value=b"{}", partition=0)
    writer.flush(30)
    writer.close(10)
    shortened = {**expected_configs(spec(WALLET_EVENTS), 1), "retention.ms": "3600000"}
    assert _refusals(secured, break_glass, topic, shortened, before=2) == (False, False)
    _until_described(secured, topic, "retention.ms", "3600000")

    after = audit_platform(settings, Scope(), with_projection=False)
    truncated = [d for d in after.discrepancies if d.check == LOG_START]
    drifted = [d for d in after.discrepancies if d.check == CONFIG]
    assert [(d.subject, "partition 0 starts at offset 2" in d.detail) for d in truncated] == [(WALLET_EVENTS, True)]
    assert [(d.subject, d.detail) for d in drifted] == [(WALLET_EVENTS, "retention.ms=3600000 (declared -1)")]
