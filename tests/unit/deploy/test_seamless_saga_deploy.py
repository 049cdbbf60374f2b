"""The seamless saga on a cluster (deploy/k8s/seamless.py): its pods follow the overlay's operators file — a Secret
per seamless operator's call-signing key, egress to each operator's wallet and nowhere else past the cluster — and its
KafkaUser holds what its loop and outbox use, derived here from the saga's own code rather than from shared/roles.py.
"""

from __future__ import annotations

import copy
import json

import pytest

from deploy.k8s import generate
from deploy.k8s.seamless import SeamlessDeploymentError
from services.seamless_saga.adapters.service import loop_config
from shared.config import Settings
from shared.roles import AclRule, acl_rules, role
from shared.topics import SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS
from tests.unit.deploy.test_k8s import validate
from tests.unit.deploy.test_k8s_checks import SEAMLESS_OPERATORS, named, pod


def _operators(**wallet_changes) -> str:
    """The seamless test operators file, its seamless wallet changed (None: the key dropped)."""
    document = copy.deepcopy(SEAMLESS_OPERATORS)
    wallet = {**document["operators"][1]["wallet"], **wallet_changes}
    document["operators"][1]["wallet"] = {key: value for key, value in wallet.items() if value is not None}
    return json.dumps(document, indent=2) + "\n"


def test_the_saga_reaches_dns_the_brokers_and_its_operators_wallet_on_the_urls_port_and_is_scraped_only():
    resources = generate.render("demo", _operators())
    policy = named(resources, "NetworkPolicy", f"reelstream-{SEAMLESS_SAGA}")["spec"]
    dns, brokers, wallet = policy["egress"]
    assert dns["ports"][0]["port"] == 53 and "podSelector" in dns["to"][0]
    assert brokers["to"] == [
        {"podSelector": {"matchLabels": {"strimzi.io/cluster": "reelstream", "strimzi.io/kind": "Kafka"}}}
    ]
    assert wallet == {
        "to": [{"ipBlock": {"cidr": "203.0.113.0/28"}}, {"ipBlock": {"cidr": "2001:db8::/64"}}],
        "ports": [{"protocol": "TCP", "port": 8443}],
    }
    assert [rule["from"] for rule in policy["ingress"]] == [
        [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    ]
    past_the_cluster = {
        r["metadata"]["name"]
        for r in resources
        if r["kind"] == "NetworkPolicy"
        for rule in r["spec"].get("egress", [])
        for peer in rule["to"]
        if "ipBlock" in peer
    }
    assert past_the_cluster == {f"reelstream-{SEAMLESS_SAGA}"}
    for resource in resources:
        validate(resource)


def test_the_saga_mounts_each_seamless_operators_key_from_its_secret_where_the_operators_file_names_it():
    resources = generate.render("demo", _operators())
    saga = pod(resources, SEAMLESS_SAGA)
    (keys,) = [v for v in saga["volumes"] if v["name"] == "seamless-keys"]
    assert keys["projected"]["sources"] == [
        {"secret": {"name": "reelstream-seamless-acme", "items": [{"key": "private.pem", "path": "acme.pem"}]}}
    ]
    assert {"name": "seamless-keys", "mountPath": "/etc/reelstream/seamless", "readOnly": True} in saga["containers"][
        0
    ]["volumeMounts"]
    for other in ("spin", "wallet", "jackpot", "projector", "monitor"):
        assert "seamless-keys" not in {v["name"] for v in pod(resources, other)["volumes"]}


def test_an_overlay_without_seamless_operators_runs_the_saga_with_no_keys_and_no_egress_past_the_cluster():
    resources = generate.render("production")
    assert "seamless-keys" not in {v["name"] for v in pod(resources, SEAMLESS_SAGA)["volumes"]}
    assert len(named(resources, "NetworkPolicy", f"reelstream-{SEAMLESS_SAGA}")["spec"]["egress"]) == 2


@pytest.mark.parametrize(
    ("change", "named_in_refusal"),
    [
        ({"egress_cidrs": None}, "declares no egress_cidrs"),
        ({"egress_cidrs": []}, "declares no egress_cidrs"),
        ({"private_key_file": "/run/secrets/acme.pem"}, "not '/etc/reelstream/seamless/acme.pem'"),
    ],
)
def test_the_generator_refuses_a_seamless_operator_the_saga_could_not_reach_or_sign_for(change, named_in_refusal):
    with pytest.raises(SeamlessDeploymentError) as refused:
        generate.render("demo", _operators(**change))
    assert "'acme'" in str(refused.value) and named_in_refusal in str(refused.value)


def test_the_sagas_principal_may_use_exactly_its_loops_and_its_outboxs_topics_group_and_transactional_ids():
    config = loop_config(Settings("127.0.0.1:1", "postgresql://x/y", "", "test", ""))
    principal = f"User:{SEAMLESS_SAGA}"

    def topic(name: str, *operations: str) -> set[AclRule]:
        return {AclRule(principal, "TOPIC", name, "LITERAL", op) for op in (*operations, "DESCRIBE")}

    def prefixed(resource: str, name: str, *operations: str) -> set[AclRule]:
        return {AclRule(principal, resource, name, "PREFIXED", op) for op in operations}

    reads = {config.commands_topic, *config.extra_inputs, config.events_topic}  # inputs, and the book's restore
    writes = {config.events_topic, config.dlq_topic, WALLET_SEAMLESS_CALLS}  # facts, dead letters, the outbox
    needed = set().union(
        *(
            topic(name, *(("READ",) if name in reads else ()), *(("WRITE",) if name in writes else ()))
            for name in reads | writes
        ),
        prefixed("GROUP", config.group_id, "READ", "DESCRIBE"),
        prefixed("TRANSACTIONAL_ID", config.group_id, "WRITE", "DESCRIBE"),  # the loop's ids are <group>-p<N>
    )
    assert set(acl_rules(role(SEAMLESS_SAGA))) == needed


def test_the_saga_runs_pods_only_where_an_operator_is_seamless():
    def replicas(resources) -> int:
        return named(resources, "StatefulSet", SEAMLESS_SAGA)["spec"]["replicas"]

    with_one = generate.render("demo", _operators())
    ledger_only = copy.deepcopy(SEAMLESS_OPERATORS)
    for operator in ledger_only["operators"]:
        operator.pop("wallet", None)
        operator.pop("wallet_mode", None)
    without = generate.render("demo", json.dumps(ledger_only) + "\n")
    assert replicas(with_one) >= 2
    assert replicas(without) == 0
    for resource in without:
        validate(resource)
