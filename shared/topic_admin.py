"""Create the platform's topics (under an optional prefix) with kafka-python's admin client, and report drift."""
from __future__ import annotations

from dataclasses import dataclass

from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
from kafka.errors import TopicAlreadyExistsError

from shared.topics import ALL_TOPICS, TopicSpec, with_min_insync


@dataclass(frozen=True)
class TopicReport:
    name: str
    created: bool
    drift: tuple[str, ...]


def _new_topic(spec: TopicSpec, name: str, replication_factor: int) -> NewTopic:
    return NewTopic(
        name=name,
        num_partitions=spec.partitions,
        replication_factor=replication_factor,
        topic_configs=with_min_insync(spec.configs, replication_factor),
    )


def ensure_topics(
    bootstrap_servers: str,
    *,
    prefix: str = "",
    replication_factor: int = 1,
    specs: tuple[TopicSpec, ...] = ALL_TOPICS,
    timeout_ms: int = 30_000,
) -> list[TopicReport]:
    """Create missing topics; for existing ones report partition or config drift (never changed silently)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, client_id="reelstream-topics", request_timeout_ms=timeout_ms)
    try:
        existing = set(admin.list_topics())
        missing = [spec for spec in specs if prefix + spec.name not in existing]
        created: set[str] = set()
        if missing:
            try:
                admin.create_topics([_new_topic(s, prefix + s.name, replication_factor) for s in missing], timeout_ms=timeout_ms)
                created = {prefix + s.name for s in missing}
            except TopicAlreadyExistsError:
                created = set()  # a concurrent creator won; drift is checked below like for any existing topic
        return [_report(admin, spec, prefix + spec.name, prefix + spec.name in created, replication_factor) for spec in specs]
    finally:
        admin.close()


def _report(admin: KafkaAdminClient, spec: TopicSpec, name: str, created: bool, replication_factor: int) -> TopicReport:
    if created:
        return TopicReport(name, True, ())
    drift = []
    described = admin.describe_topics([name])[0]
    partitions = len(described.get("partitions", []))
    if partitions != spec.partitions:
        drift.append(f"partitions {partitions} != {spec.partitions}")
    resource = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])
    actual = _config_values(resource)
    for key, wanted in with_min_insync(spec.configs, replication_factor).items():
        if key in actual and actual[key] != wanted:
            drift.append(f"{key}={actual[key]} != {wanted}")
    return TopicReport(name, False, tuple(drift))


def _config_values(responses) -> dict[str, str]:
    values: dict[str, str] = {}
    for response in responses:
        for resource in getattr(response, "resources", []):
            for entry in resource[4]:
                values[entry[0]] = entry[1]
    return values


def delete_topics(bootstrap_servers: str, names: list[str], timeout_ms: int = 30_000) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, client_id="reelstream-topics", request_timeout_ms=timeout_ms)
    try:
        present = set(admin.list_topics())
        doomed = [name for name in names if name in present]
        if doomed:
            admin.delete_topics(doomed, timeout_ms=timeout_ms)
    finally:
        admin.close()
