"""The Kubernetes resources of a reelstream deployment, as data: Strimzi Kafka (KRaft node pool of 3) and its topics
generated from shared/topics.py, one workload per service with probes, requests and a disruption budget, a
CloudNativePG cluster and a ServiceMonitor. `python -m deploy.k8s.generate` writes them; a test fails when stale."""

from __future__ import annotations

from typing import Any

from shared.kafka import expected_configs
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, PLAYER_PARTITIONS, SPIN_REQUESTS, WALLET_COMMANDS, spec

NAMESPACE = "reelstream"
CLUSTER = "reelstream"  # the Strimzi cluster: its bootstrap Service is <cluster>-kafka-bootstrap
PG_CLUSTER = "reelstream-pg"  # CloudNativePG writes the app user's URI to the Secret <cluster>-app, key `uri`
IMAGE = "ghcr.io/reelstream/reelstream:0.1.0"
REPLICATION_FACTOR = 3
HTTP_PORT = 9400
KAFKA_VERSION = "4.3.1"
KAFKA_METADATA_VERSION = "4.3-IV0"
PART_OF = {"app.kubernetes.io/part-of": "reelstream"}


def _meta(name: str, **labels: str) -> dict[str, Any]:
    return {"name": name, "namespace": NAMESPACE, "labels": {**PART_OF, **labels}}


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
                "listeners": [
                    {"name": "plain", "port": 9092, "type": "internal", "tls": False},
                    {"name": "tls", "port": 9093, "type": "internal", "tls": True},
                ],
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
        },
    }
    return [pool, kafka]


def topic_resources() -> list[dict[str, Any]]:
    """One KafkaTopic per declared topic (names under no prefix), with the configs `topics create` would set."""
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
        for topic in ALL_TOPICS
    ]


def user_resources() -> list[dict[str, Any]]:
    """KafkaUser resources (principals, ACLs, quotas) from the role definitions of shared/roles.py, in this
    cluster's namespace and under its Strimzi cluster label."""
    from deploy.k8s.users import kafka_users

    users = kafka_users()
    for user in users:
        user["metadata"] = {
            **user["metadata"],
            "namespace": NAMESPACE,
            "labels": {**user["metadata"]["labels"], "strimzi.io/cluster": CLUSTER},
        }
    return users


# (service, the input topic whose partitions bound its replicas, replicas, stateful, cpu request, memory request)
WORKLOADS = (
    ("wallet", WALLET_COMMANDS, 3, True, "500m", "512Mi"),
    ("jackpot", JACKPOT_COMMANDS, 2, False, "250m", "256Mi"),
    ("spin", SPIN_REQUESTS, 3, False, "1", "768Mi"),
    # One projector over every partition (positions in Postgres, no consumer group): never two at once.
    ("projector", None, 1, False, "500m", "512Mi"),
)


def max_replicas(input_topic: str | None) -> int:
    return spec(input_topic).partitions if input_topic else 1


def _env() -> list[dict[str, Any]]:
    return [
        {"name": "KAFKA_BOOTSTRAP_SERVERS", "value": f"{CLUSTER}-kafka-bootstrap:9092"},
        {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": f"{PG_CLUSTER}-app", "key": "uri"}}},
        {"name": "REELSTREAM_ENV", "value": "production"},
        {
            "name": "REELSTREAM_SESSION_SECRET",
            "valueFrom": {"secretKeyRef": {"name": "reelstream-session", "key": "secret"}},
        },
        {"name": "REELSTREAM_STATE_DIR", "value": "/var/lib/reelstream"},
        {"name": "NUMBA_CACHE_DIR", "value": "/var/cache/reelstream/numba"},
        {"name": "REELSTREAM_HTTP_HOST", "value": "0.0.0.0"},
        {"name": "REELSTREAM_HTTP_PORT", "value": str(HTTP_PORT)},
    ]


def _container(name: str, cpu: str, memory: str) -> dict[str, Any]:
    def probe(path: str, period_s: int, failures: int) -> dict[str, Any]:
        return {
            "httpGet": {"path": path, "port": "metrics"},
            "periodSeconds": period_s,
            "timeoutSeconds": 3,
            "failureThreshold": failures,
        }

    return {
        "name": name,
        "image": IMAGE,
        "args": ["services", "run", name],
        "env": _env(),
        "ports": [{"name": "metrics", "containerPort": HTTP_PORT}],
        # Restores can take minutes on a long history: the startup probe holds liveness off meanwhile.
        "startupProbe": probe("/health", 5, 60),
        "livenessProbe": probe("/health", 10, 3),
        "readinessProbe": probe("/ready", 5, 3),
        "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}},
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 10001,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [
            {"name": "state", "mountPath": "/var/lib/reelstream"},
            {"name": "numba-cache", "mountPath": "/var/cache/reelstream/numba"},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    }


def workload(name: str, input_topic: str | None, replicas: int, stateful: bool, cpu: str, memory: str) -> dict:
    assert replicas <= max_replicas(input_topic), (name, replicas)
    labels = {"app.kubernetes.io/name": name, **PART_OF}
    volumes = [{"name": "numba-cache", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}}]
    if not stateful:
        volumes.append({"name": "state", "emptyDir": {}})
    pod = {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [_container(name, cpu, memory)],
            "volumes": volumes,
            "terminationGracePeriodSeconds": 30,
            "securityContext": {"fsGroup": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
        },
    }
    body: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
        "template": pod,
    }
    if stateful:  # the wallet's snapshots: a restart folds only the tail after them
        body.update(
            serviceName=name,
            volumeClaimTemplates=[
                {
                    "metadata": {"name": "state"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}},
                }
            ],
        )
    elif name == "projector":
        body["strategy"] = {"type": "Recreate"}  # never two projectors writing one schema
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet" if stateful else "Deployment",
        "metadata": _meta(name, **{"app.kubernetes.io/name": name}),
        "spec": body,
    }


def service_resources() -> list[dict[str, Any]]:
    resources = []
    for name, topic, replicas, stateful, cpu, memory in WORKLOADS:
        selector = {"app.kubernetes.io/name": name}
        resources.append(workload(name, topic, replicas, stateful, cpu, memory))
        resources.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": _meta(name, **selector),
                "spec": {
                    "selector": selector,
                    "clusterIP": "None" if stateful else None,
                    "ports": [{"name": "metrics", "port": HTTP_PORT, "targetPort": "metrics"}],
                },
            }
        )
        resources.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": _meta(name, **selector),
                "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector}},
            }
        )
    for resource in resources:  # drop the unset clusterIP of headless-or-not Services
        if resource["kind"] == "Service" and resource["spec"]["clusterIP"] is None:
            del resource["spec"]["clusterIP"]
    return resources


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


def monitoring_resources() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": _meta("reelstream"),
            "spec": {
                "selector": {"matchLabels": PART_OF},
                "namespaceSelector": {"matchNames": [NAMESPACE]},
                "endpoints": [{"port": "metrics", "path": "/metrics", "interval": "15s"}],
            },
        }
    ]


def namespace_resources() -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": dict(PART_OF)}}]


# file name -> its resources, in the order `kubectl apply -k deploy/k8s` should create them.
FILES = {
    "namespace.yaml": namespace_resources,
    "kafka.yaml": kafka_resources,
    "topics.yaml": topic_resources,
    "users.yaml": user_resources,
    "postgres.yaml": postgres_resources,
    "services.yaml": service_resources,
    "monitoring.yaml": monitoring_resources,
}
assert PLAYER_PARTITIONS >= max(replicas for _, _, replicas, *_ in WORKLOADS)
