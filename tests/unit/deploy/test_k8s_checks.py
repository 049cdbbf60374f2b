"""The semantic check over the rendered overlays (deploy/k8s/checks.py): both hold every property, and each harmful
change of docs/operations.md's "Deployment mutations" table, made to the rendered resources in memory, is named by
the check the table says."""

from __future__ import annotations

import copy
import json
import re

import pytest

from deploy.k8s import checks, workloads
from deploy.k8s.generate import render
from deploy.k8s.manifests import OPEN_WAGER_AGE, OPEN_WAGER_ALERT, TAKEOVER, TAKEOVER_ALERT
from deploy.k8s.tenants import OVERLAYS

# The demo overlay as if its operators file held a seamless operator too: the saga's keys and egress follow it.
SEAMLESS_OPERATORS = {
    "operators": [
        {"id": "demo-a"},
        {
            "id": "acme",
            "wallet_mode": "seamless",
            "wallet": {
                "url": "https://wallet.acme.example:8443/hub88",
                "protocol": "hub88",
                "key_id": "reelstream-1",
                "private_key_file": "/etc/reelstream/seamless/acme.pem",
                "egress_cidrs": ["203.0.113.0/28", "2001:db8::/64"],
            },
        },
    ]
}
WITH_SEAMLESS = "demo+seamless"
RENDERED = {overlay: render(overlay) for overlay in OVERLAYS} | {
    WITH_SEAMLESS: render("demo", json.dumps(SEAMLESS_OPERATORS, indent=2) + "\n")
}


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


def rules(resources):
    return named(resources, "PrometheusRule", "reelstream")["spec"]["groups"][0]["rules"]


def rule(resources, alert):
    return next(r for r in rules(resources) if r["alert"] == alert)


def kafka(resources):
    return next(r for r in resources if r["kind"] == "Kafka")["spec"]["kafka"]


def projected(resources, service, volume):
    return next(v for v in pod(resources, service)["volumes"] if v["name"] == volume)["projected"]["sources"]


def egress(resources, service):
    return named(resources, "NetworkPolicy", f"reelstream-{service}")["spec"]["egress"]


def operators_file(resources, change):
    configmap = named(resources, "ConfigMap", workloads.OPERATORS_CONFIGMAP)
    document = json.loads(configmap["data"]["operators.json"])
    change(document)
    configmap["data"]["operators.json"] = json.dumps(document)


def wallet_key_from_a_configmap(resources):
    sources = projected(resources, "seamless-saga", "seamless-keys")
    sources[:] = [{"configMap": {"name": "reelstream-operators", "items": [{"key": "acme.pem", "path": "acme.pem"}]}}]


def wallet_key_in(resources, service):
    key = {"secret": {"name": "reelstream-seamless-acme", "items": [{"key": "private.pem", "path": "acme.pem"}]}}
    projected(resources, service, "kafka").append(key)


WALLET_KEY = {
    "secret": {"name": "reelstream-signing-wallet", "items": [{"key": "wallet.key.json", "path": "wallet.key.json"}]}
}
WALLET_WRITES_SAGA_RECORD = {
    "resource": {"type": "topic", "name": "wallet.seamless", "patternType": "literal"},
    "operations": ["Write"],
}
SAGA_EXTRA_ACL = {
    "resource": {"type": "topic", "name": "wallet.events", "patternType": "literal"},
    "operations": ["Write"],
}


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
        "an egress rule without `to` (open egress) for the spin",
        "demo",
        lambda r: egress(r, "spin").append({"ports": [{"protocol": "TCP", "port": 443}]}),
        "egress",
    ),
    (
        "the seamless saga's egress opened to 0.0.0.0/0",
        WITH_SEAMLESS,
        lambda r: egress(r, "seamless-saga")[-1]["to"].append({"ipBlock": {"cidr": "0.0.0.0/0"}}),
        "egress",
    ),
    (
        "the projector given egress to an operator's wallet",
        WITH_SEAMLESS,
        lambda r: egress(r, "projector").append(egress(r, "seamless-saga")[-1]),
        "egress",
    ),
    (
        "the seamless saga's egress to its operator's wallet removed",
        WITH_SEAMLESS,
        lambda r: egress(r, "seamless-saga").pop(),
        "egress",
    ),
    (
        "a seamless operator's wallet without `egress_cidrs`",
        WITH_SEAMLESS,
        lambda r: operators_file(r, lambda d: d["operators"][1]["wallet"].pop("egress_cidrs")),
        "egress",
    ),
    (
        "the seamless saga let in from every pod of the namespace",
        "demo",
        lambda r: named(r, "NetworkPolicy", "reelstream-seamless-saga")["spec"]["ingress"].append(
            {"from": [{"podSelector": {}}]}
        ),
        "network",
    ),
    (
        "an operator's wallet key in a ConfigMap",
        WITH_SEAMLESS,
        wallet_key_from_a_configmap,
        "seamless",
    ),
    (
        "an operator's wallet key mounted in the spin",
        WITH_SEAMLESS,
        lambda r: wallet_key_in(r, "spin"),
        "secrets",
    ),
    (
        "the seamless saga's workload removed",
        "demo",
        lambda r: r.remove(named(r, "StatefulSet", "seamless-saga")),
        "workloads",
    ),
    (
        "the seamless saga's KafkaUser given WRITE on wallet.events",
        "demo",
        lambda r: named(r, "KafkaUser", "seamless-saga")["spec"]["authorization"]["acls"].append(SAGA_EXTRA_ACL),
        "kafka-acls",
    ),
    (
        "the seamless saga signing with the wallet's key instead of its own",
        "production",
        lambda r: projected(r, "seamless-saga", "signing")[-1].update(WALLET_KEY),
        "signing",
    ),
    (
        "the wallet's KafkaUser given WRITE on wallet.seamless (the saga's record)",
        "demo",
        lambda r: named(r, "KafkaUser", "wallet")["spec"]["authorization"]["acls"].append(WALLET_WRITES_SAGA_RECORD),
        "topic-owners",
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
    (
        "the oldest open wager's alert removed",
        "demo",
        lambda r: rules(r).remove(rule(r, OPEN_WAGER_ALERT)),
        "monitoring",
    ),
    (
        "the oldest open wager's alert at the de-duplication window (3600 s), past the audit's 900 s",
        "production",
        lambda r: rule(r, OPEN_WAGER_ALERT).update(expr=f"max by (pod) ({OPEN_WAGER_AGE}) > 3600"),
        "monitoring",
    ),
    (
        "the oldest open wager's alert held 5 minutes by `for`",
        "production",
        lambda r: rule(r, OPEN_WAGER_ALERT).update({"for": "5m"}),
        "monitoring",
    ),
    (
        "the oldest open wager's alert on a series nobody exports",
        "demo",
        lambda r: rule(r, OPEN_WAGER_ALERT).update(expr="max by (pod) (reelstream_open_wager_age_seconds) > 900"),
        "monitoring",
    ),
    (
        "the slow-takeover alert removed",
        "demo",
        lambda r: rules(r).remove(rule(r, TAKEOVER_ALERT)),
        "monitoring",
    ),
    (
        "the slow-takeover alert counting only takeovers above 60 s",
        "production",
        lambda r: rule(r, TAKEOVER_ALERT).update(
            expr=rule(r, TAKEOVER_ALERT)["expr"].replace('le="10.0"', 'le="60.0"')
        ),
        "monitoring",
    ),
]


@pytest.mark.parametrize("overlay", [*OVERLAYS, WITH_SEAMLESS])
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


def test_every_series_the_alerts_name_is_one_the_services_export():
    from shared.observability import metrics

    exported = {collector._name for collector in vars(metrics).values() if hasattr(collector, "_name")}
    for r in rules(RENDERED["production"]):
        named_series = {
            re.sub(r"_(total|count|bucket|sum)$", "", s) for s in re.findall(r"reelstream_[a-z_]+", r["expr"])
        }
        assert named_series <= exported, r["alert"]
    assert OPEN_WAGER_AGE in exported
    assert TAKEOVER in exported


def test_the_slow_takeover_alert_counts_a_bucket_the_histogram_has():
    from shared.kafka import SESSION_TIMEOUT_MS
    from shared.observability import metrics

    assert SESSION_TIMEOUT_MS / 1000 in metrics.TAKEOVER_SECONDS._upper_bounds
