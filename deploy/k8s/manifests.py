"""The Kubernetes resources of a reelstream deployment, as data: a kustomize base and one overlay per operators file
(docs/operations.md); `python -m deploy.k8s.generate` writes them, a test fails when stale."""

from __future__ import annotations

from typing import Any

from deploy.k8s import tenants
from deploy.k8s.network import EXPORTER, network_resources
from deploy.k8s.seamless import seamless_resources
from deploy.k8s.workloads import (
    CLUSTER,
    DEPLOYMENT_CONFIGMAP,
    KAFKA_CLIENT_LABEL,
    KAFKA_TLS_PORT,
    NAMESPACE,
    OPERATORS_CONFIGMAP,
    PART_OF,
    PG_CLUSTER,
    WORKLOADS,
    _meta,
    service_resources,
)
from shared.config import SAGA_TIME_LIMIT_MS
from shared.kafka import SESSION_TIMEOUT_MS, expected_configs
from shared.topics import PLAYER_PARTITIONS, TopicSpec

REPLICATION_FACTOR = 3
KAFKA_VERSION = "4.3.1"
KAFKA_METADATA_VERSION = "4.3-IV0"
# kube-prometheus-stack's Prometheus selects ServiceMonitors and PrometheusRules by `release: <its release name>`:
# an overlay patches this label when the release is named otherwise (docs/operations.md).
PROMETHEUS_RELEASE = {"release": "kube-prometheus-stack"}
# The environment each overlay runs as (REELSTREAM_ENV): production refuses to start unsigned.
ENVIRONMENTS = {"demo": "demo", "production": "production"}


def kafka_resources() -> list[dict[str, Any]]:
    pool = {
        "apiVersion": "kafka.strimzi.io/v1",
        "kind": "KafkaNodePool",
        "metadata": _meta("dual-role", **{"strimzi.io/cluster": CLUSTER}),
        "spec": {
            "replicas": 3,
            "roles": ["controller", "broker"],
            "storage": {
                "type": "jbod",
                "volumes": [
                    {
                        "id": 0,
                        "type": "persistent-claim",
                        "size": "100Gi",
                        "deleteClaim": False,
                        "kraftMetadata": "shared",
                    }
                ],
            },
            "resources": {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"memory": "4Gi"}},
            # A TLS 1.3 client's close_notify answered, not left for the client to wait out (shared/event_loop.py).
            "jvmOptions": {"javaSystemProperties": [{"name": "jdk.tls.acknowledgeCloseNotify", "value": "true"}]},
        },
    }
    kafka = {
        "apiVersion": "kafka.strimzi.io/v1",
        "kind": "Kafka",
        "metadata": _meta(CLUSTER),
        "spec": {
            "kafka": {
                "version": KAFKA_VERSION,
                "metadataVersion": KAFKA_METADATA_VERSION,
                # One listener: SCRAM-SHA-512 over TLS (the cluster CA), reachable only from the reelstream pods.
                "listeners": [
                    {
                        "name": "tls",
                        "port": KAFKA_TLS_PORT,
                        "type": "internal",
                        "tls": True,
                        "authentication": {"type": "scram-sha-512"},
                        "networkPolicyPeers": [{"podSelector": {"matchLabels": KAFKA_CLIENT_LABEL}}],
                    }
                ],
                # No role is a super user (Strimzi adds its own operators): admin's DENY on event topics must hold.
                "authorization": {"type": "simple", "superUsers": []},
                "config": {
                    "offsets.topic.replication.factor": REPLICATION_FACTOR,
                    "transaction.state.log.replication.factor": REPLICATION_FACTOR,
                    "transaction.state.log.min.isr": REPLICATION_FACTOR - 1,
                    "default.replication.factor": REPLICATION_FACTOR,
                    "min.insync.replicas": REPLICATION_FACTOR - 1,
                    "auto.create.topics.enable": False,
                    "group.initial.rebalance.delay.ms": 0,
                },
            },
            "entityOperator": {"topicOperator": {}, "userOperator": {}},
            # Under-replicated partitions and group lag as metrics (kafka_topic_partition_under_replicated_partition).
            "kafkaExporter": {"topicRegex": ".*", "groupRegex": ".*"},
        },
    }
    return [pool, kafka]


def topic_resources(specs: tuple[TopicSpec, ...]) -> list[dict[str, Any]]:
    """One KafkaTopic per topic (names under no prefix), with the configs `topics create` would set."""
    return [
        {
            "apiVersion": "kafka.strimzi.io/v1",
            "kind": "KafkaTopic",
            "metadata": _meta(topic.name, **{"strimzi.io/cluster": CLUSTER}),
            "spec": {
                "topicName": topic.name,
                "partitions": topic.partitions,
                "replicas": REPLICATION_FACTOR,
                "config": expected_configs(topic, REPLICATION_FACTOR),
            },
        }
        for topic in specs
    ]


def user_resources(ids: tuple[str, ...]) -> list[dict[str, Any]]:
    """KafkaUser resources (principals, ACLs, quotas) of a deployment with these operators, in this cluster's
    namespace and under its Strimzi cluster label."""
    users = tenants.kafka_users(ids)
    for user in users:
        user["metadata"] = {
            **user["metadata"],
            "namespace": NAMESPACE,
            "labels": {**user["metadata"]["labels"], "strimzi.io/cluster": CLUSTER},
        }
    return users


def postgres_resources() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "postgresql.cnpg.io/v1",
            "kind": "Cluster",
            "metadata": _meta(PG_CLUSTER),
            "spec": {
                "instances": 3,
                "imageName": "ghcr.io/cloudnative-pg/postgresql:15",
                "storage": {"size": "50Gi"},
                "bootstrap": {"initdb": {"database": "reelstream", "owner": "reelstream"}},
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "1Gi"}},
                "monitoring": {"enablePodMonitor": True},
            },
        }
    ]


def _rule(alert: str, expr: str, duration: str, severity: str, summary: str) -> dict[str, Any]:
    return {
        "alert": alert,
        "expr": expr,
        "for": duration,
        "labels": {"severity": severity},
        "annotations": {"summary": summary, "runbook": "docs/operations.md"},
    }


OPEN_WAGER_ALERT = "ReelstreamWagerOpenTooLong"
OPEN_WAGER_AGE = "reelstream_wallet_oldest_open_wager_age_seconds"  # shared/observability/metrics.py
TAKEOVER_ALERT = "ReelstreamSlowTakeover"
TAKEOVER = "reelstream_takeover_seconds"  # shared/observability/metrics.py: a bucket ends at the session timeout
RULES = [
    _rule(
        "ReelstreamConsumerLag",
        "max by (service, topic) (reelstream_consumer_lag) > 1000",
        "5m",
        "warning",
        "{{ $labels.service }} is {{ $value }} records behind on {{ $labels.topic }}",
    ),
    _rule(
        "ReelstreamNotReady",
        "min by (service, pod) (reelstream_ready) == 0",
        "5m",
        "critical",
        "{{ $labels.pod }} ({{ $labels.service }}) has not been ready for 5 minutes",
    ),
    _rule(
        "ReelstreamDown",
        f'up{{namespace="{NAMESPACE}", job=~"{"|".join(w.name for w in WORKLOADS)}"}} == 0',
        "2m",
        "critical",
        "{{ $labels.pod }} answers no scrape",
    ),
    # The monitor's series carry the source topic: one per dead-letter topic it counts.
    _rule(
        "ReelstreamDeadLetters",
        'sum by (topic, reason) (increase(reelstream_dead_letters_total{topic!=""}[5m])) > 0',
        "0m",
        "warning",
        "{{ $value }} records dead-lettered on {{ $labels.topic }} ({{ $labels.reason }})",
    ),
    # A wager open past the saga's limit is one the audit flags (shared/config.py); alerting there leaves the rest of
    # the de-duplication window to close it before a settlement dated at its debit is refused by age.
    _rule(
        OPEN_WAGER_ALERT,
        f"max by (pod) ({OPEN_WAGER_AGE}) > {SAGA_TIME_LIMIT_MS // 1000}",
        "0m",
        "critical",
        "{{ $labels.pod }} holds a wager debited {{ $value }} s ago and neither settled nor refunded",
    ),
    # A takeover slower than the session timeout costs more than the failure detector's own bound again
    # (docs/operations.md, "On Kubernetes").
    _rule(
        TAKEOVER_ALERT,
        f"sum by (service) (increase({TAKEOVER}_count[15m])) - sum by (service) "
        f'(increase({TAKEOVER}_bucket{{le="{SESSION_TIMEOUT_MS / 1000}"}}[15m])) > 0',
        "0m",
        "warning",
        "{{ $labels.service }} took {{ $value }} partitions over in more than the session timeout in 15 minutes",
    ),
    _rule(
        "KafkaUnderReplicatedPartitions",
        "sum by (topic) (kafka_topic_partition_under_replicated_partition) > 0",
        "5m",
        "critical",
        "{{ $labels.topic }} has {{ $value }} under-replicated partitions",
    ),
]


def monitoring_resources() -> list[dict[str, Any]]:
    exporter = {"app.kubernetes.io/name": "kafka-exporter"}
    return [
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": _meta("reelstream", **PROMETHEUS_RELEASE),
            "spec": {
                "selector": {"matchLabels": {"reelstream.io/scrape": "true"}},
                "namespaceSelector": {"matchNames": [NAMESPACE]},
                "endpoints": [{"port": "metrics", "path": "/metrics", "interval": "15s"}],
            },
        },
        {  # Strimzi makes no Service for its Kafka Exporter: this one lets a ServiceMonitor find it.
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(f"{CLUSTER}-kafka-exporter-metrics", **exporter),
            "spec": {"selector": EXPORTER, "ports": [{"name": "metrics", "port": 9404, "targetPort": 9404}]},
        },
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": _meta("kafka-exporter", **PROMETHEUS_RELEASE),
            "spec": {
                "selector": {"matchLabels": exporter},
                "namespaceSelector": {"matchNames": [NAMESPACE]},
                "endpoints": [{"port": "metrics", "path": "/metrics", "interval": "30s"}],
            },
        },
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PrometheusRule",
            "metadata": _meta("reelstream", **PROMETHEUS_RELEASE),
            "spec": {"groups": [{"name": "reelstream", "rules": RULES}]},
        },
    ]


def namespace_resources() -> list[dict[str, Any]]:
    """The namespace, under the restricted Pod Security Standard (Strimzi's operator must then make restricted pods:
    STRIMZI_POD_SECURITY_PROVIDER_CLASS=restricted)."""
    psa = {f"pod-security.kubernetes.io/{mode}": "restricted" for mode in ("enforce", "audit", "warn")}
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": NAMESPACE,
                "labels": {**PART_OF, **psa, "pod-security.kubernetes.io/enforce-version": "v1.33"},
            },
        }
    ]


def overlay_configmaps(overlay: str, text: str | None = None) -> list[dict[str, Any]]:
    """The environment and the operators file (REELSTREAM_OPERATORS_FILE) of an overlay's pods."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(DEPLOYMENT_CONFIGMAP),
            "data": {"environment": ENVIRONMENTS[overlay]},
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(OPERATORS_CONFIGMAP),
            "data": {"operators.json": tenants.operators_text(overlay) if text is None else text},
        },
    ]


# file name -> its resources, in the order `kubectl apply -k` should create them.
BASE = {
    "namespace.yaml": namespace_resources,
    "kafka.yaml": kafka_resources,
    "topics.yaml": lambda: topic_resources(tenants.common_topics()),
    "postgres.yaml": postgres_resources,
    "services.yaml": service_resources,
    "network.yaml": network_resources,
    "monitoring.yaml": monitoring_resources,
}


def overlay_files(overlay: str, text: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """An overlay's own files; `text`: an operators file's in place of the overlay's (tests render others)."""
    ids = tenants.operator_ids(overlay) if text is None else tuple(o.id for o in tenants.configured(overlay, text))
    return {
        "config.yaml": overlay_configmaps(overlay, text),
        "topics.yaml": topic_resources(tenants.operator_topics(ids)),
        "users.yaml": user_resources(ids),
        "seamless.yaml": seamless_resources(tenants.configured(overlay, text)),
    }


assert PLAYER_PARTITIONS >= max(w.replicas for w in WORKLOADS)
