"""The reelstream pods: each service's container with its Kafka credentials, CA, signing key and secrets mounted from
the Secrets Strimzi and the operator make, StatefulSets (static membership from the pod name) without volumes, the
monitor, the single projector, Services, disruption budgets and NetworkPolicies (default deny + what each needs)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shared.kafka import INSTANCE_ID_ENV, SESSION_TIMEOUT_ENV, SESSION_TIMEOUT_MS
from shared.topics import JACKPOT_COMMANDS, SEAMLESS_SAGA, SPIN_REQUESTS, WALLET_COMMANDS, WALLET_INTERNAL, spec

NAMESPACE = "reelstream"
CLUSTER = "reelstream"  # the Strimzi cluster: its bootstrap Service is <cluster>-kafka-bootstrap
PG_CLUSTER = "reelstream-pg"  # CloudNativePG writes the app user's URI to the Secret <cluster>-app, key `uri`
IMAGE = "ghcr.io/reelstream/reelstream:0.1.0"
HTTP_PORT = 9400
KAFKA_TLS_PORT = 9093
PART_OF = {"app.kubernetes.io/part-of": "reelstream"}
KAFKA_CLIENT_LABEL = {"reelstream.io/kafka-client": "true"}  # the only pods the TLS listener lets in
METRICS_NAMESPACE = {"kubernetes.io/metadata.name": "monitoring"}  # where Prometheus scrapes from: patch to yours

# Where a pod finds what it is given; the smoke test re-roots these paths under a temporary folder.
KAFKA_DIR = "/etc/reelstream/kafka"
SIGNING_DIR = "/etc/reelstream/signing"
OPERATORS_DIR = "/etc/reelstream/operators"
SEAMLESS_KEYS_DIR = "/etc/reelstream/seamless"  # the saga's keys for signing its calls to operators' wallets
STATE_DIR = "/var/lib/reelstream"
NUMBA_DIR = "/var/cache/reelstream/numba"

# The Secrets and ConfigMaps a deployment reads: Strimzi and CloudNativePG make some, the operator the rest
# (docs/operations.md, "From laptop to cluster"); the overlays make the deployment and operators ConfigMaps.
CA_SECRET = f"{CLUSTER}-cluster-ca-cert"  # Strimzi: the cluster CA's certificate (never its key)
PG_SECRET = f"{PG_CLUSTER}-app"
SESSION_SECRET = "reelstream-session"
DROP_KEY_SECRET = "reelstream-jackpot-drop"
SIGNING_PUBLIC = "reelstream-signing-public"
CLIENTS_CONFIGMAP = "reelstream-kafka-clients"
DEPLOYMENT_CONFIGMAP = "reelstream-deployment"
OPERATORS_CONFIGMAP = "reelstream-operators"
SECRET_MODE = 0o440  # owner root, group fsGroup 10001: the service reads, nobody else in the pod does


def signing_secret(writer: str) -> str:
    return f"reelstream-signing-{writer}"


@dataclass(frozen=True)
class Workload:
    name: str
    input_topic: str | None  # whose partitions bound the replicas (None: one replica)
    replicas: int
    cpu: str
    memory: str
    signs: bool  # holds the signing key of the writer it is named after (shared/signing.py WRITERS)
    group_member: bool  # a consumer-group member: static membership from the pod name
    stateful_set: bool = True
    in_overlay: bool = False  # its pods follow the overlay's operators file (deploy/k8s/seamless.py)


WORKLOADS = (
    Workload("wallet", WALLET_COMMANDS, 3, "500m", "512Mi", signs=True, group_member=True),
    Workload("jackpot", JACKPOT_COMMANDS, 2, "250m", "256Mi", signs=True, group_member=True),
    Workload("spin", SPIN_REQUESTS, 3, "1", "768Mi", signs=True, group_member=True),
    # One projector over every partition (positions in Postgres): a StatefulSet never runs a second pod of one
    # identity, and the projector's advisory lock keeps a second one (a force-deleted pod's twin) waiting.
    Workload("projector", None, 1, "500m", "512Mi", signs=False, group_member=False),
    Workload("monitor", None, 1, "250m", "512Mi", signs=True, group_member=False, stateful_set=False),
    # The seamless saga reads the wallet's wager commands and signs its own facts (shared/records.py OWNERS).
    Workload(SEAMLESS_SAGA, WALLET_INTERNAL, 3, "500m", "512Mi", signs=True, group_member=True, in_overlay=True),
)


def max_replicas(input_topic: str | None) -> int:
    return spec(input_topic).partitions if input_topic else 1


def _meta(name: str, **labels: str) -> dict[str, Any]:
    return {"name": name, "namespace": NAMESPACE, "labels": {**PART_OF, **labels}}


def _secret_env(name: str, secret: str, key: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}


def client_config(role: str) -> dict[str, str]:
    """The REELSTREAM_KAFKA_CLIENT_CONFIG file of a role (shared/security.py): SCRAM over TLS, the password and the
    cluster CA read from the files its Secrets are mounted as."""
    return {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_username": role,
        "sasl_password_file": f"{KAFKA_DIR}/password",
        "ssl_ca_file": f"{KAFKA_DIR}/ca.crt",
    }


def _env(w: Workload) -> list[dict[str, Any]]:
    env: list[dict[str, Any]] = [
        {"name": "KAFKA_BOOTSTRAP_SERVERS", "value": f"{CLUSTER}-kafka-bootstrap:{KAFKA_TLS_PORT}"},
        {"name": "REELSTREAM_KAFKA_CLIENT_CONFIG", "value": f"{KAFKA_DIR}/client.json"},
        {"name": "REELSTREAM_KAFKA_ROLE", "value": w.name},
        {"name": "REELSTREAM_SIGNING_DIR", "value": SIGNING_DIR},
        {"name": "REELSTREAM_OPERATORS_FILE", "value": f"{OPERATORS_DIR}/operators.json"},
        {
            "name": "REELSTREAM_ENV",
            "valueFrom": {"configMapKeyRef": {"name": DEPLOYMENT_CONFIGMAP, "key": "environment"}},
        },
        {"name": "REELSTREAM_STATE_DIR", "value": STATE_DIR},
        {"name": "NUMBA_CACHE_DIR", "value": NUMBA_DIR},
        {"name": "REELSTREAM_HTTP_HOST", "value": "0.0.0.0"},
        {"name": "REELSTREAM_HTTP_PORT", "value": str(HTTP_PORT)},
    ]
    if w.group_member:
        # The failure detector, written out: static membership from the pod name and the session timeout the recovery
        # bound in docs/operations.md counts on (deploy/k8s/checks.py refuses a longer one).
        env.append({"name": INSTANCE_ID_ENV, "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
        env.append({"name": SESSION_TIMEOUT_ENV, "value": str(SESSION_TIMEOUT_MS)})
    extra = {
        "spin": [_secret_env("REELSTREAM_SESSION_KEYS", SESSION_SECRET, "keys")],
        "jackpot": [_secret_env("REELSTREAM_JACKPOT_DROP_KEY", DROP_KEY_SECRET, "key")],
        "projector": [_secret_env("DATABASE_URL", PG_SECRET, "uri")],
        "monitor": [
            {"name": "REELSTREAM_MONITOR_PORT", "value": str(HTTP_PORT)},
            {"name": "REELSTREAM_MONITOR_BIND", "value": "0.0.0.0"},
            {"name": "REELSTREAM_MONITOR_DATADIR", "value": f"{STATE_DIR}/monitor"},
        ],
    }
    return env + extra.get(w.name, [])


def seamless_key_secret(operator_id: str) -> str:
    """The Secret (key `private.pem`) holding the key the saga signs its calls to this operator's wallet with."""
    return f"reelstream-seamless-{operator_id}"


def seamless_key_file(operator_id: str) -> str:
    """Where the saga's pods find that key: the `private_key_file` the operators file must name for it."""
    return f"{SEAMLESS_KEYS_DIR}/{operator_id}.pem"


def _keys_volume(operator_ids: tuple[str, ...]) -> list[dict[str, Any]]:
    sources = [
        {"secret": {"name": seamless_key_secret(o), "items": [{"key": "private.pem", "path": f"{o}.pem"}]}}
        for o in operator_ids
    ]
    return [{"name": "seamless-keys", "projected": {"defaultMode": SECRET_MODE, "sources": sources}}] if sources else []


def _volumes(w: Workload, operator_ids: tuple[str, ...]) -> list[dict[str, Any]]:
    kafka = [
        {"configMap": {"name": CLIENTS_CONFIGMAP, "items": [{"key": f"{w.name}.json", "path": "client.json"}]}},
        {"secret": {"name": w.name, "items": [{"key": "password", "path": "password"}]}},  # Strimzi's KafkaUser
        {"secret": {"name": CA_SECRET, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
    ]
    signing = [{"configMap": {"name": SIGNING_PUBLIC, "items": [{"key": "public.json", "path": "public.json"}]}}]
    if w.signs:
        key = f"{w.name}.key.json"
        signing.append({"secret": {"name": signing_secret(w.name), "items": [{"key": key, "path": key}]}})
    scratch = {"emptyDir": {"sizeLimit": "256Mi"}}
    return [
        {"name": "kafka", "projected": {"defaultMode": SECRET_MODE, "sources": kafka}},
        {"name": "signing", "projected": {"defaultMode": SECRET_MODE, "sources": signing}},
        {"name": "operators", "configMap": {"name": OPERATORS_CONFIGMAP}},
        {"name": "state", **scratch},
        {"name": "numba-cache", **scratch},
        {"name": "tmp", **scratch},
        *_keys_volume(operator_ids),
    ]


def _mounts(operator_ids: tuple[str, ...]) -> list[dict[str, Any]]:
    keys = [{"name": "seamless-keys", "mountPath": SEAMLESS_KEYS_DIR, "readOnly": True}] if operator_ids else []
    return keys + [
        {"name": "kafka", "mountPath": KAFKA_DIR, "readOnly": True},
        {"name": "signing", "mountPath": SIGNING_DIR, "readOnly": True},
        {"name": "operators", "mountPath": OPERATORS_DIR, "readOnly": True},
        {"name": "state", "mountPath": STATE_DIR},
        {"name": "numba-cache", "mountPath": NUMBA_DIR},
        {"name": "tmp", "mountPath": "/tmp"},
    ]


def _probe(path: str, period_s: int, failures: int) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": "metrics"},
        "periodSeconds": period_s,
        "timeoutSeconds": 3,
        "failureThreshold": failures,
    }


def container(w: Workload, operator_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "name": w.name,
        "image": IMAGE,
        "args": ["services", "run", w.name],
        "env": _env(w),
        "ports": [{"name": "metrics", "containerPort": HTTP_PORT}],
        # Restores can take minutes on a long history: the startup probe holds liveness off meanwhile.
        "startupProbe": _probe("/health", 5, 60),
        "livenessProbe": _probe("/health", 10, 3),
        "readinessProbe": _probe("/ready", 5, 3),
        "resources": {"requests": {"cpu": w.cpu, "memory": w.memory}, "limits": {"memory": w.memory}},
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 10001,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": _mounts(operator_ids),
    }


def _spread(selector: dict[str, str]) -> list[dict[str, Any]]:
    """One replica per node where there are nodes enough, and across zones where the cluster has them."""
    return [
        {
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": selector},
        }
        for key, when in (
            ("kubernetes.io/hostname", "DoNotSchedule"),
            ("topology.kubernetes.io/zone", "ScheduleAnyway"),
        )
    ]


def workload(w: Workload, operator_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    """The pods of `w`; `operator_ids`: the seamless operators whose call-signing keys they mount."""
    assert w.replicas <= max_replicas(w.input_topic), (w.name, w.replicas)
    selector = {"app.kubernetes.io/name": w.name}
    pod = {
        "metadata": {"labels": {**selector, **PART_OF, **KAFKA_CLIENT_LABEL}},
        "spec": {
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "containers": [container(w, operator_ids)],
            "volumes": _volumes(w, operator_ids),
            "terminationGracePeriodSeconds": 30,
            "topologySpreadConstraints": _spread(selector),
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 10001,
                "runAsGroup": 10001,
                "fsGroup": 10001,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
        },
    }
    body: dict[str, Any] = {"replicas": w.replicas, "selector": {"matchLabels": selector}, "template": pod}
    if w.stateful_set:
        body.update(serviceName=w.name, podManagementPolicy="Parallel")
    else:
        body["strategy"] = {"type": "Recreate"}  # one monitor writing alerts at a time
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet" if w.stateful_set else "Deployment",
        "metadata": _meta(w.name, **selector),
        "spec": body,
    }


def service(w: Workload) -> dict[str, Any]:
    selector = {"app.kubernetes.io/name": w.name}
    body: dict[str, Any] = {
        "selector": selector,
        "ports": [{"name": "metrics", "port": HTTP_PORT, "targetPort": "metrics"}],
    }
    if w.stateful_set:
        body["clusterIP"] = "None"  # the StatefulSet's governing Service: stable pod names
    labels = {**selector, "reelstream.io/scrape": "true"}  # what the ServiceMonitor selects
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(w.name, **labels), "spec": body}


def budget(w: Workload) -> dict[str, Any]:
    selector = {"app.kubernetes.io/name": w.name}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": _meta(w.name, **selector),
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector}},
    }


def clients_configmap() -> dict[str, Any]:
    data = {f"{w.name}.json": json.dumps(client_config(w.name), indent=2) + "\n" for w in WORKLOADS}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta(CLIENTS_CONFIGMAP), "data": data}


def service_resources() -> list[dict[str, Any]]:
    resources = [clients_configmap()]
    for w in WORKLOADS:
        if not w.in_overlay:
            resources += [workload(w), service(w), budget(w)]
    return resources
