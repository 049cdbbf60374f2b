"""deploy/k8s as a cluster would take it, checked offline: current with shared/topics.py, core kinds valid against
kubernetes-validate's bundled schemas (strict: unknown fields refused), custom resources against the committed CRD
schemas (Strimzi, CloudNativePG, prometheus-operator) made strict the same way, and the operational properties."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from deploy.k8s import generate, manifests
from deploy.k8s.workloads import max_replicas
from shared.topics import ALL_TOPICS, SEAMLESS_SAGA

ROOT = Path(__file__).resolve().parents[3]
K8S = ROOT / "deploy" / "k8s"
CRDS = ROOT / "deploy" / "schemas" / "crds"
KUBERNETES_VERSION = "1.33.0"


def committed(overlay: str = "demo") -> list[dict]:
    """What kustomize makes of the committed overlay: the base's files and the overlay's own, as listed."""
    docs = []
    for folder in (K8S / "base", K8S / "overlays" / overlay):
        for name in yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]:
            if not name.startswith(".."):
                docs += [doc for doc in yaml.safe_load_all((folder / name).read_text()) if doc]
    return docs


def strict(schema: dict) -> dict:
    """The CRD schema with unknown fields refused wherever it lists properties (what `kubectl apply
    --validate=strict` does with a structural schema), so a misspelt field fails here too."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (
                "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
            ):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


@functools.lru_cache(maxsize=None)
def custom_validator(api_version: str, kind: str) -> jsonschema.Validator:
    group, version = api_version.split("/")
    return jsonschema.Draft7Validator(strict(json.loads((CRDS / f"{group}_{version}_{kind}.json").read_text())))


def validate(resource: dict) -> None:
    """Custom resources (an API group with a dot, not Kubernetes' own) against their CRD schema, core kinds with
    kubernetes-validate."""
    group = resource["apiVersion"].split("/")[0]
    if "." in group and not group.endswith(".k8s.io"):
        custom_validator(resource["apiVersion"], resource["kind"]).validate(resource)
    else:
        kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)


def test_the_generated_manifests_are_current():
    files = generate.rendered()
    for name, text in files.items():
        assert (K8S / name).read_text() == text, f"deploy/k8s/{name} is stale: run python -m deploy.k8s.generate"
    generated = {str(path.relative_to(K8S)) for path in K8S.rglob("*.yaml")}
    assert generated == set(files), "a stale manifest is left in deploy/k8s"


@pytest.mark.parametrize("overlay", ["demo", "production"])
def test_every_resource_validates_against_its_schema(overlay):
    resources = committed(overlay)
    assert resources == generate.render(overlay)
    assert {r["kind"] for r in resources} >= {
        "Kafka",
        "KafkaNodePool",
        "KafkaTopic",
        "Cluster",
        "ServiceMonitor",
        "PrometheusRule",
        "NetworkPolicy",
        "Deployment",
        "StatefulSet",
        "Service",
        "PodDisruptionBudget",
    }
    for resource in resources:
        validate(resource)


@pytest.mark.parametrize(
    "kind, path, bad",
    [
        ("KafkaTopic", ("spec",), {"partitionz": 6}),
        ("Kafka", ("spec", "kafka"), {"listeners": "plain"}),
        ("Cluster", ("spec",), {"instances": "three"}),
        ("StatefulSet", ("spec", "template", "spec", "containers", 0), {"readinesProbe": {}}),
        ("PrometheusRule", ("spec", "groups", 0), {"rulez": []}),
    ],
)
def test_the_validation_refuses_a_broken_resource(kind, path, bad):
    resource = copy.deepcopy(next(r for r in committed() if r["kind"] == kind))
    node = resource
    for step in path:
        node = node[step]
    node.update(bad)
    with pytest.raises(Exception) as refused:
        validate(resource)
    assert isinstance(refused.value, (jsonschema.ValidationError, kubernetes_validate.ValidationError))


def test_one_kafkatopic_per_declared_topic_with_replication_3_and_min_insync_2():
    topics = {r["spec"]["topicName"]: r["spec"] for r in committed() if r["kind"] == "KafkaTopic"}
    assert set(topics) == {topic.name for topic in ALL_TOPICS}  # the demo overlay's operators are shared/operators'
    for topic in ALL_TOPICS:
        found = topics[topic.name]
        assert found["partitions"] == topic.partitions
        assert found["replicas"] == 3
        assert found["config"]["min.insync.replicas"] == "2"
        assert {k: v for k, v in found["config"].items() if k != "min.insync.replicas"} == topic.configs


def test_the_production_overlay_has_no_demo_tenant():
    resources = committed("production")
    names = {r["metadata"]["name"] for r in resources} | {r["spec"].get("topicName") for r in resources if "spec" in r}
    assert not any("demo-" in str(name) for name in names)
    operators = next(r for r in resources if r["metadata"]["name"] == "reelstream-operators")
    assert json.loads(operators["data"]["operators.json"]) == {"operators": []}


def test_kafka_is_kraft_with_a_node_pool_of_three_brokers():
    pools = [r for r in committed() if r["kind"] == "KafkaNodePool"]
    brokers = sum(pool["spec"]["replicas"] for pool in pools if "broker" in pool["spec"]["roles"])
    assert brokers == 3
    assert any("controller" in pool["spec"]["roles"] for pool in pools)
    kafka = next(r for r in committed() if r["kind"] == "Kafka")
    assert "zookeeper" not in kafka["spec"]
    assert kafka["spec"]["kafka"]["config"]["min.insync.replicas"] == 2


def test_each_service_runs_bounded_by_its_partitions_with_probes_requests_and_a_budget():
    resources = committed()
    workloads = {r["metadata"]["name"]: r for r in resources if r["kind"] in ("Deployment", "StatefulSet")}
    assert set(workloads) == {w.name for w in manifests.WORKLOADS}
    for w in manifests.WORKLOADS:
        body = workloads[w.name]["spec"]
        lowest = 0 if w.name == SEAMLESS_SAGA else 1  # the saga has pods only beside a seamless operator
        assert lowest <= body["replicas"] <= max_replicas(w.input_topic), w.name
        container = body["template"]["spec"]["containers"][0]
        assert container["livenessProbe"]["httpGet"]["path"] == "/health"
        assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
        assert {"cpu", "memory"} <= set(container["resources"]["requests"])
        mounted = {m["mountPath"] for m in container["volumeMounts"]}
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert {env["REELSTREAM_STATE_DIR"], env["NUMBA_CACHE_DIR"]} <= mounted
        budgets = [
            r
            for r in resources
            if r["kind"] == "PodDisruptionBudget"
            and r["spec"]["selector"]["matchLabels"] == body["selector"]["matchLabels"]
        ]
        assert len(budgets) == 1, w.name
    monitor = next(r for r in resources if r["kind"] == "ServiceMonitor" and r["metadata"]["name"] == "reelstream")
    services = [r for r in resources if r["kind"] == "Service"]
    wanted = monitor["spec"]["selector"]["matchLabels"].items()
    selected = [s for s in services if all(s["metadata"]["labels"].get(k) == v for k, v in wanted)]
    assert len(selected) == len(manifests.WORKLOADS)
    assert all(s["spec"]["ports"][0]["name"] == monitor["spec"]["endpoints"][0]["port"] for s in selected)


def test_an_overlays_own_operator_gets_its_users_whatever_the_process_runs_with():
    """The manifests of an overlay follow its operators file, not the operators of the process that renders them."""
    from deploy.k8s import tenants

    names = {user["metadata"]["name"] for user in tenants.kafka_users(("acme",))}
    assert {"game-client.acme", "cashier.acme", "spin", "wallet", "admin"} <= names
    assert not any("demo-" in name for name in names)
