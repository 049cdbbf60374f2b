"""Other ecosystems connect as a role with the files `reelstream infra up --secure` writes, as they are: Kafka's own
Java client (kafka-clients from the fetched jars, through kafka.tools.ConsoleProducer) with `<role>.properties`, and
librdkafka (confluent-kafka) with `<role>.conf`. Each may write what its role owns and is refused the rest."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from deploy.local.paths import default_paths
from deploy.local.tools import find_java
from shared.kafka import kafka_consumer
from shared.topics import SPIN_REQUESTS, WALLET_COMMANDS

pytestmark = pytest.mark.integration
CLIENTS = Path(os.environ.get("REELSTREAM_KAFKA_CLIENTS_DIR", "/nonexistent"))


def _records(bootstrap: str, topic: str) -> list[bytes]:
    from kafka import TopicPartition

    reader = kafka_consumer(bootstrap, group_id=None, enable_auto_commit=False, consumer_timeout_ms=2000)
    try:
        partitions = [TopicPartition(topic, p) for p in reader.partitions_for_topic(topic) or ()]
        reader.assign(partitions)
        reader.seek_to_beginning(*partitions)
        return [record.value for record in reader]
    finally:
        reader.close()


def _java_produce(bootstrap: str, role: str, topic: str, line: str) -> subprocess.CompletedProcess:
    libs = default_paths().kafka_libs
    argv = [
        find_java(),
        "-Xmx256m",
        "-cp",
        f"{libs}/*",
        "kafka.tools.ConsoleProducer",
        "--bootstrap-server",
        bootstrap,
        "--topic",
        topic,
        "--producer.config",
        str(CLIENTS / f"{role}.properties"),
        "--sync",
        "--producer-property",
        "max.block.ms=15000",
        "--producer-property",
        "delivery.timeout.ms=20000",
        "--producer-property",
        "request.timeout.ms=10000",
    ]
    return subprocess.run(argv, input=line + "\n", capture_output=True, text=True, timeout=90)


def test_a_java_client_with_the_roles_properties_writes_as_that_role(secured, deployment):
    topic = deployment + SPIN_REQUESTS
    accepted = _java_produce(secured, "game-client", topic, "from-java")
    assert accepted.returncode == 0, accepted.stderr[-2000:]
    assert b"from-java" in _records(secured, topic)
    refused = _java_produce(secured, "game-client", deployment + WALLET_COMMANDS, "mint")
    assert "TopicAuthorizationException" in refused.stdout + refused.stderr


def _librdkafka_settings(role: str) -> dict[str, str]:
    lines = (CLIENTS / f"{role}.conf").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


def _librdkafka_produce(role: str, topic: str, value: bytes) -> str | None:
    from confluent_kafka import Producer

    outcome: list[str | None] = []
    client = Producer({**_librdkafka_settings(role), "message.timeout.ms": 15000})
    client.produce(topic, value, key=b"p-1", on_delivery=lambda error, _: outcome.append(error and error.name()))
    client.flush(30)
    assert outcome, "no delivery report within 30 s"
    return outcome[0]


def test_a_librdkafka_client_with_the_roles_conf_writes_as_that_role(secured, deployment):
    topic = deployment + SPIN_REQUESTS
    assert _librdkafka_produce("game-client", topic, b"from-librdkafka") is None
    assert b"from-librdkafka" in _records(secured, topic)
    assert _librdkafka_produce("game-client", deployment + WALLET_COMMANDS, b"mint") == "TOPIC_AUTHORIZATION_FAILED"
