"""NetworkPolicies: nothing reaches a pod of the namespace unless a policy below (or one Strimzi makes for its brokers)
lets it, and each reelstream pod reaches only DNS, the brokers' TLS listener and, for the projector, PostgreSQL; the
seamless saga, besides, its operators' wallets (deploy/k8s/seamless.py). Nothing else leaves the cluster."""

from __future__ import annotations

from typing import Any

from deploy.k8s.workloads import (
    CLUSTER,
    HTTP_PORT,
    KAFKA_TLS_PORT,
    METRICS_NAMESPACE,
    PG_CLUSTER,
    WORKLOADS,
    _meta,
)

BROKERS = {"strimzi.io/cluster": CLUSTER, "strimzi.io/kind": "Kafka"}
POSTGRES = {"cnpg.io/cluster": PG_CLUSTER}
EXPORTER = {"strimzi.io/name": f"{CLUSTER}-kafka-exporter"}
CNPG_OPERATOR_NAMESPACE = {"kubernetes.io/metadata.name": "cnpg-system"}  # patch when the operator lives elsewhere
DATABASE_CLIENTS = ("projector",)


def _policy(name: str, selector: dict[str, str], ingress: list | None, egress: list | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"podSelector": {"matchLabels": selector} if selector else {}, "policyTypes": []}
    if ingress is not None:
        spec["policyTypes"].append("Ingress")
        spec["ingress"] = ingress
    if egress is not None:
        spec["policyTypes"].append("Egress")
        spec["egress"] = egress
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": _meta(name), "spec": spec}


def tcp(*ports: int) -> list[dict[str, Any]]:
    return [{"protocol": "TCP", "port": port} for port in ports]


_DNS = {
    "to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
    "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
}
_SCRAPE = {"from": [{"namespaceSelector": {"matchLabels": METRICS_NAMESPACE}}], "ports": tcp(HTTP_PORT)}


def workload_policy(name: str, outside: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """Scrapes in; DNS, the brokers and `outside` (egress rules past the cluster, the saga's alone) out."""
    egress = [_DNS, {"to": [{"podSelector": {"matchLabels": BROKERS}}], "ports": tcp(KAFKA_TLS_PORT)}, *outside]
    if name in DATABASE_CLIENTS:
        egress.append({"to": [{"podSelector": {"matchLabels": POSTGRES}}], "ports": tcp(5432)})
    return _policy(f"reelstream-{name}", {"app.kubernetes.io/name": name}, [_SCRAPE], egress)


def network_resources() -> list[dict[str, Any]]:
    postgres_in = [
        {"from": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": n}}} for n in DATABASE_CLIENTS]}
        | {"ports": tcp(5432)},
        {"from": [{"podSelector": {"matchLabels": POSTGRES}}], "ports": tcp(5432, 8000)},  # replication, status
        {"from": [{"namespaceSelector": {"matchLabels": CNPG_OPERATOR_NAMESPACE}}], "ports": tcp(8000)},
        {"from": [{"namespaceSelector": {"matchLabels": METRICS_NAMESPACE}}], "ports": tcp(9187)},
    ]
    exporter_in = [{"from": [{"namespaceSelector": {"matchLabels": METRICS_NAMESPACE}}], "ports": tcp(9404)}]
    return [
        _policy("default-deny-ingress", {}, [], None),
        *(workload_policy(w.name) for w in WORKLOADS if not w.in_overlay),
        _policy("postgres", POSTGRES, postgres_in, None),
        _policy("kafka-exporter", EXPORTER, exporter_in, None),
    ]
