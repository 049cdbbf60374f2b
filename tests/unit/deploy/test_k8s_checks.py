"""The semantic check over the rendered overlays (deploy/k8s/checks.py): both hold every property, and each harmful
change of docs/operations.md's "Deployment mutations" table, made to the rendered resources in memory, is named by
the check the table says."""

from __future__ import annotations

import copy
import json

import pytest

from deploy.k8s import checks, workloads
from deploy.k8s.generate import render
from deploy.k8s.tenants import OVERLAYS

RENDERED = {overlay: render(overlay) for overlay in OVERLAYS}


def named(resources, kind, name):
    return next(r for r in resources if r["kind"] == kind and r["metadata"]["name"] == name)


def pod(resources, name):
    return named(resources, "StatefulSet" if name != "monitor" else "Deployment", name)["spec"]["template"]["spec"]


def env(resources, service):
    return pod(resources, service)["containers"][0]["env"]


def set_env(resources, service, variable, entry):
    entries = env(resources, service)
    entries[:] = [e for e in entries if e["name"] != variable] + ([{"name": variable, **entry}] if entry else [])


def client_json(resources, service, **changes):
    configmap = named(resources, "ConfigMap", workloads.CLIENTS_CONFIGMAP)
    settings = {**json.loads(configmap["data"][f"{service}.json"]), **changes}
    configmap["data"][f"{service}.json"] = json.dumps({k: v for k, v in settings.items() if v is not None})


def kafka(resources):
    return next(r for r in resources if r["kind"] == "Kafka")["spec"]["kafka"]


def projected(resources, service, volume):
    return next(v for v in pod(resources, service)["volumes"] if v["name"] == volume)["projected"]["sources"]


# (mutation as the docs table words it, overlay, change, the check that must name it)
MUTATIONS = [
    ("Kafka `authorization` removed", "demo", lambda r: kafka(r).pop("authorization"), "kafka-authorization"),
    (
        "`admin` made a Kafka super user",
        "demo",
        lambda r: kafka(r)["authorization"].update(superUsers=["admin"]),
        "kafka-authorization",
    ),
    (
        "a KafkaUser without ACLs",
        "demo",
        lambda r: named(r, "KafkaUser", "wallet")["spec"].pop("authorization"),
        "kafkauser",
    ),
    (
        "a plaintext listener beside the TLS one",
        "demo",
        lambda r: kafka(r)["listeners"].append({"name": "plain", "port": 9092, "type": "internal", "tls": False}),
        "listener",
    ),
    (
        "the services pointed at the TLS port in plaintext",
        "demo",
        lambda r: client_json(r, "spin", security_protocol="PLAINTEXT"),
        "kafka-credentials",
    ),
    (
        "the services pointed at a port with no TLS listener",
        "demo",
        lambda r: set_env(r, "wallet", "KAFKA_BOOTSTRAP_SERVERS", {"value": "reelstream-kafka-bootstrap:9092"}),
        "kafka-credentials",
    ),
    (
        "a service connecting as another role",
        "demo",
        lambda r: client_json(r, "jackpot", sasl_username="admin"),
        "kafka-credentials",
    ),
    (
        "the SCRAM password inline in the client file",
        "demo",
        lambda r: client_json(r, "wallet", sasl_password="changeme", sasl_password_file=None),
        "kafka-credentials",
    ),
    (
        "the CA file dropped from the client settings",
        "demo",
        lambda r: client_json(r, "spin", ssl_ca_file=None),
        "kafka-credentials",
    ),
    (
        "signing unset under production",
        "production",
        lambda r: set_env(r, "wallet", "REELSTREAM_SIGNING_DIR", None),
        "signing",
    ),
    (
        "a writer's signing key left out of its pod",
        "production",
        lambda r: projected(r, "spin", "signing").pop(),
        "signing",
    ),
    (
        "REELSTREAM_ENV not production in the production overlay",
        "production",
        lambda r: named(r, "ConfigMap", workloads.DEPLOYMENT_CONFIGMAP)["data"].update(environment="demo"),
        "signing",
    ),
    (
        "the drop key in an emptyDir (REELSTREAM_JACKPOT_DROP_KEY unset)",
        "production",
        lambda r: set_env(r, "jackpot", "REELSTREAM_JACKPOT_DROP_KEY", None),
        "drop-key",
    ),
    (
        "the session key ring as a plain value",
        "production",
        lambda r: set_env(r, "spin", "REELSTREAM_SESSION_KEYS", {"value": "k1:" + "x" * 32}),
        "secret-env",
    ),
    (
        "a test hook armed",
        "production",
        lambda r: set_env(r, "jackpot", "REELSTREAM_TEST_HOOKS", {"value": "1"}),
        "secret-env",
    ),
    (
        "the CA key in an application container",
        "demo",
        lambda r: projected(r, "wallet", "kafka").append(
            {"secret": {"name": "reelstream-cluster-ca", "items": [{"key": "ca.key", "path": "ca.key"}]}}
        ),
        "secrets",
    ),
    (
        "a misspelt Secret name",
        "demo",
        lambda r: set_env(
            r,
            "spin",
            "REELSTREAM_SESSION_KEYS",
            {"valueFrom": {"secretKeyRef": {"name": "reelstream-sesion", "key": "keys"}}},
        ),
        "secrets",
    ),
    (
        "an image on `:latest`",
        "demo",
        lambda r: pod(r, "spin")["containers"][0].update(image="ghcr.io/reelstream/reelstream:latest"),
        "images",
    ),
    (
        "`runAsNonRoot: false`",
        "demo",
        lambda r: pod(r, "wallet")["containers"][0]["securityContext"].update(runAsNonRoot=False),
        "pod-security",
    ),
    (
        "the memory limit removed",
        "demo",
        lambda r: pod(r, "spin")["containers"][0]["resources"].pop("limits"),
        "pod-security",
    ),
    (
        "the service account token mounted",
        "demo",
        lambda r: pod(r, "monitor").update(automountServiceAccountToken=True),
        "pod-security",
    ),
    (
        "the namespace's restricted Pod Security label removed",
        "demo",
        lambda r: named(r, "Namespace", "reelstream")["metadata"]["labels"].pop("pod-security.kubernetes.io/enforce"),
        "pod-security",
    ),
    (
        "a workload's NetworkPolicy removed",
        "demo",
        lambda r: r.remove(named(r, "NetworkPolicy", "reelstream-projector")),
        "network",
    ),
    (
        "the default-deny NetworkPolicy removed",
        "demo",
        lambda r: r.remove(named(r, "NetworkPolicy", "default-deny-ingress")),
        "network",
    ),
    (
        "static membership lost (REELSTREAM_INSTANCE_ID unset)",
        "demo",
        lambda r: set_env(r, "wallet", "REELSTREAM_INSTANCE_ID", None),
        "workloads",
    ),
    (
        "one fixed instance id for every spin pod (they fence each other)",
        "production",
        lambda r: set_env(r, "spin", "REELSTREAM_INSTANCE_ID", {"value": "spin"}),
        "workloads",
    ),
    (
        "the wallet's session timeout above the stated bound (45 s)",
        "production",
        lambda r: set_env(r, "wallet", "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS", {"value": "45000"}),
        "failure-detector",
    ),
    (
        "the jackpot's session timeout left to the default",
        "demo",
        lambda r: set_env(r, "jackpot", "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS", None),
        "failure-detector",
    ),
    ("two projectors", "demo", lambda r: named(r, "StatefulSet", "projector")["spec"].update(replicas=2), "workloads"),
    ("`min.insync.replicas` 1", "demo", lambda r: kafka(r)["config"].update({"min.insync.replicas": 1}), "replication"),
    (
        "the ServiceMonitor's `release` label removed",
        "demo",
        lambda r: named(r, "ServiceMonitor", "reelstream")["metadata"]["labels"].pop("release"),
        "monitoring",
    ),
    (
        "the under-replicated partitions alert removed",
        "demo",
        lambda r: named(r, "PrometheusRule", "reelstream")["spec"]["groups"][0]["rules"].pop(),
        "monitoring",
    ),
]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_overlay_holds_every_property(overlay):
    assert checks.problems(RENDERED[overlay], overlay) == []


@pytest.mark.parametrize("what, overlay, change, check", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_the_check_names_each_harmful_change(what, overlay, change, check):
    resources = copy.deepcopy(RENDERED[overlay])
    change(resources)
    found = checks.problems(resources, overlay)
    assert any(problem.startswith(f"{check}: ") for problem in found), (what, found)


def mutation_table() -> str:
    rows = [f"| {what} | `{overlay}` | `{check}` |" for what, overlay, _, check in MUTATIONS]
    return "\n".join(["| harmful change | overlay | check that names it |", "|---|---|---|", *rows])


def test_the_mutation_table_in_docs_operations_is_current():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "operations.md").read_text()
    assert mutation_table() in docs, "print tests.unit.deploy.test_k8s_checks.mutation_table() into the docs"
