"""Strimzi `KafkaUser` resources generated from the roles (shared/roles.py): one SCRAM-SHA-512 user per role with its
ACLs and quotas, for a real cluster. `python -m deploy.k8s.generate` writes them into each overlay's users.yaml
(deploy/k8s/tenants.py picks the roles and topics of the overlay's operators); a test keeps every file current."""

from __future__ import annotations

from pathlib import Path

from shared.roles import ROLES, AclRule, Role, acl_rules

CLUSTER_LABEL = "reelstream"
USERS_FILE = Path(__file__).resolve().parent / "overlays" / "demo" / "users.yaml"
_TYPES = {"TOPIC": "topic", "GROUP": "group", "TRANSACTIONAL_ID": "transactionalId", "CLUSTER": "cluster"}
_PATTERNS = {"LITERAL": "literal", "PREFIXED": "prefix"}
_QUOTAS = {
    "producer_byte_rate": "producerByteRate",
    "consumer_byte_rate": "consumerByteRate",
    "request_percentage": "requestPercentage",
}


def _acls(rules: list[AclRule]) -> list[dict]:
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for rule in rules:
        operation = "".join(part.title() for part in rule.operation.split("_"))  # DESCRIBE_CONFIGS -> DescribeConfigs
        grouped.setdefault((rule.resource, rule.name, rule.pattern, rule.permission), []).append(operation)
    acls = []
    for (resource, name, pattern, permission), operations in grouped.items():
        target = {"type": _TYPES[resource]}
        if resource != "CLUSTER":
            target.update(name=name, patternType=_PATTERNS[pattern])
        acl = {"resource": target, "operations": sorted(operations)}
        if permission == "DENY":
            acl["type"] = "deny"
        acls.append(acl)
    return acls


def kafka_user(member: Role, rules: list[AclRule] | None = None) -> dict:
    """The role's KafkaUser; `rules` its ACLs (default: over every declared topic)."""
    spec: dict = {
        "authentication": {"type": "scram-sha-512"},
        "authorization": {"type": "simple", "acls": _acls(acl_rules(member) if rules is None else rules)},
    }
    if member.quotas:
        spec["quotas"] = {_QUOTAS[key]: int(value) for key, value in sorted(member.quotas.items())}
    return {
        "apiVersion": "kafka.strimzi.io/v1",
        "kind": "KafkaUser",
        "metadata": {"name": member.name, "labels": {"strimzi.io/cluster": CLUSTER_LABEL}},
        "spec": spec,
    }


def kafka_users() -> list[dict]:
    return [kafka_user(member) for member in ROLES]
