"""docker-compose.yml as an operator relies on it (CI has no Docker to run it): valid against the Compose schema
(committed, no download), every piece of state on a named volume where the image writes it, a health check on
every long-running service on /ready, dependencies on health, and Prometheus + Grafana with the dashboard; and the
rules of deploy/compose_check.py hold for it and the Dockerfile, each naming every harmful change listed here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from deploy import compose_check
from shared.observability import metrics

ROOT = Path(__file__).resolve().parents[3]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text()
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
SERVICES = ("wallet", "jackpot", "spin", "projector")
DOCKERFILE = (ROOT / "deploy" / "docker" / "Dockerfile").read_text()
_FIRST_SECURE_VOLUMES = """    volumes:
      - tls:/tls:ro
"""
# Harmful changes (docs/operations.md, "Compose and image mutations"): (id, "compose" | "dockerfile", text,
# replacement, what the rules must then name). Each text occurs in the file; the first occurrence is changed.
MUTATIONS = [
    (
        "prometheus-latest",
        "compose",
        "image: prom/prometheus:v3.5.0",
        "image: prom/prometheus:latest",
        "prometheus: image",
    ),
    ("postgres-latest", "compose", "image: postgres:15", "image: postgres:latest", "postgres: image"),
    (
        "secret-default-changeme",
        "compose",
        "${REELSTREAM_SESSION_SECRET:?set REELSTREAM_SESSION_SECRET to a random value}",
        "${REELSTREAM_SESSION_SECRET:-changeme}",
        "secret REELSTREAM_SESSION_SECRET has a default",
    ),
    ("pip-unconstrained", "dockerfile", "pip install -c constraints.txt .", "pip install .", "without -c constraints"),
    ("image-healthcheck-removed", "dockerfile", "HEALTHCHECK", "# HEALTHCHECK", "no HEALTHCHECK"),
    ("from-python-latest", "dockerfile", "FROM python:3.11-slim-bookworm", "FROM python:latest", "FROM python:latest"),
    ("image-runs-as-root", "dockerfile", "USER 10001", "USER root", "runs as root"),
    (
        "compose-healthcheck-removed",
        "compose",
        '    healthcheck:\n      test: ["CMD-SHELL", "pg_isready',
        '    x-h:\n      test: ["',
        "postgres: no health check",
    ),
    (
        "allow-everyone-if-no-acl",
        "compose",
        'KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND: "false"',
        'KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND: "true"',
        "KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND is not false",
    ),
    (
        "kafka-log-dir-in-tmp",
        "compose",
        "KAFKA_LOG_DIRS: /var/lib/kafka/data",
        "KAFKA_LOG_DIRS: /tmp/kraft-combined-logs",
        "kafka: Kafka's log dir /tmp/kraft-combined-logs",
    ),
    (
        "secure-kafka-log-dir-unset",
        "compose",
        "      # The image's default is /tmp/kraft-combined-logs: inside the container, gone when it is recreated.\n"
        "      KAFKA_LOG_DIRS: /var/lib/kafka/data\n      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1\n"
        "      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: 1\n      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: 1\n",
        "",
        "kafka: Kafka's log dir /tmp/kraft-combined-logs",
    ),
    (
        "ca-key-in-app-container",
        "compose",
        _FIRST_SECURE_VOLUMES,
        _FIRST_SECURE_VOLUMES + "      - pki:/pki:ro\n",
        "with the CA key",
    ),
    (
        "second-projector-same-database",
        "compose",
        "postgresql://reelstream:reelstream@postgres-secure:5432/reelstream",
        "postgresql://reelstream:reelstream@postgres:5432/reelstream",
        "two projectors write the one database",
    ),
    (
        "monitor-secure-wrong-port",
        "compose",
        "    # Like the plain monitor: faust's own web port, not REELSTREAM_HTTP_PORT.\n    healthcheck:",
        "    x-healthcheck:",
        "monitor-secure: its health check does not probe /ready on its web port 8088",
    ),
    ("signing-unset", "compose", "    REELSTREAM_SIGNING_DIR: /signing\n  #", "  #", "nothing signed or verified"),
    (
        "operators-file-unset",
        "compose",
        "    REELSTREAM_OPERATORS_FILE: /app/deploy/operators/demo.json\n",
        "",
        "REELSTREAM_OPERATORS_FILE '' is not an operators file",
    ),
    ("kafka-secure-user-unset", "compose", '    user: "1000:1000"\n', "", "kafka-secure: runs as the image user"),
    (
        "broker-key-not-shared",
        "compose",
        ', "--broker-group", "1000"]',
        "]",
        "kafka-secure: runs as 1000:1000, not the group",
    ),
    ("volumes-job-all-capabilities", "compose", "    cap_drop: [ALL]\n", "", "secure-volumes: runs as root with more"),
    (
        "pki-job-as-root",
        "compose",
        '    command: ["infra", "pki"',
        '    user: "0"\n    command: ["infra", "pki"',
        "secure-pki: does not run as",
    ),
    (
        "a-service-mounts-every-key",
        "compose",
        "{type: volume, source: signing, target: /signing, read_only: true, volume: {subpath: by-writer/spin}}",
        "signing:/signing:ro",
        "spin-secure: mounts signing:/",
    ),
    (
        "a-service-mounts-another-roles-password",
        "compose",
        "subpath: by-role/wallet",
        "subpath: by-role/spin",
        "wallet-secure: mounts clients:by-role/spin",
    ),
    (
        "a-service-reads-every-role-file",
        "compose",
        "REELSTREAM_KAFKA_CLIENT_CONFIG: /client/jackpot.json",
        "REELSTREAM_KAFKA_CLIENTS_DIR: /client",
        "jackpot-secure: does not connect with its own role's client file",
    ),
    (
        "seamless-saga-not-run",
        "compose",
        '    command: ["services", "run", "seamless-saga"]\n',
        '    command: ["topics", "list"]\n',
        "the secure profile runs no `services run seamless-saga`",
    ),
    (
        "seamless-saga-connects-as-the-wallet",
        "compose",
        "REELSTREAM_KAFKA_CLIENT_CONFIG: /client/seamless-saga.json",
        "REELSTREAM_KAFKA_CLIENT_CONFIG: /client/wallet.json",
        "seamless-saga-secure: does not connect with its own role's client file",
    ),
    (
        "seamless-saga-mounts-the-wallets-password",
        "compose",
        "subpath: by-role/seamless-saga",
        "subpath: by-role/wallet",
        "seamless-saga-secure: mounts clients:by-role/wallet",
    ),
    (
        "internal-network-not-internal",
        "compose",
        "  secure-internal:\n    internal: true\n",
        "  secure-internal:\n    internal: false\n",
        "network secure-internal: not `internal: true`",
    ),
    (
        "secure-services-on-the-egress-network",
        "compose",
        "  networks: [secure-internal]\n  depends_on:\n",
        "  networks: [secure-internal, secure-egress]\n  depends_on:\n",
        "wallet-secure: joins secure-egress, a network with a route out",
    ),
    (
        "host-ports-network-nats-out",
        "compose",
        '      com.docker.network.bridge.enable_ip_masquerade: "false"\n',
        '      com.docker.network.bridge.enable_ip_masquerade: "true"\n',
        "kafka-secure: joins secure-host, a network with a route out",
    ),
    (
        "secure-database-on-the-default-network",
        "compose",
        "    image: postgres:15\n    profiles: [secure]\n    networks: [secure-internal]\n",
        "    image: postgres:15\n    profiles: [secure]\n",
        "postgres-secure: joins default, a network with a route out",
    ),
    (
        "secure-job-on-the-host-network",
        "compose",
        '    command: ["signing", "generate"]\n    networks: [secure-internal]\n',
        '    command: ["signing", "generate"]\n    network_mode: host\n',
        "secure-signing: network_mode host, a route out",
    ),
    (
        "saga-off-the-internal-network",
        "compose",
        "    networks: [secure-internal, secure-egress]\n",
        "    networks: [secure-egress]\n",
        "seamless-saga-secure: not on secure-internal",
    ),
]


def mounts(service: str) -> dict[str, str]:
    """container path -> volume name of a compose service's named-volume mounts."""
    found = {}
    for entry in COMPOSE["services"][service].get("volumes", []):
        source, target = entry.split(":")[:2]
        found[target] = source
    return found


def test_the_compose_file_is_valid_against_the_compose_schema():
    schema = json.loads((ROOT / "deploy" / "schemas" / "compose-spec.json").read_text())
    jsonschema.Draft7Validator(schema).validate(COMPOSE)


def test_the_schema_check_would_catch_a_misspelt_key():
    schema = json.loads((ROOT / "deploy" / "schemas" / "compose-spec.json").read_text())
    broken = {**COMPOSE, "services": {**COMPOSE["services"], "spin": {**COMPOSE["services"]["spin"], "helthcheck": {}}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(broken)


def test_kafkas_log_dirs_are_on_the_named_volume():
    kafka = COMPOSE["services"]["kafka"]
    log_dirs = kafka["environment"]["KAFKA_LOG_DIRS"]
    assert mounts("kafka")[log_dirs] in COMPOSE["volumes"]


def test_kafka_formats_its_volume_with_a_valid_fixed_cluster_id():
    import base64

    cluster_id = COMPOSE["services"]["kafka"]["environment"]["CLUSTER_ID"]
    assert len(cluster_id) == 22 and len(base64.urlsafe_b64decode(cluster_id + "==")) == 16


def test_postgres_data_is_on_a_named_volume():
    assert mounts("postgres")["/var/lib/postgresql/data"] in COMPOSE["volumes"]


def test_every_service_writes_only_to_volumes_the_image_gives_its_user():
    image_env = dict(re.findall(r"(\w+)=(\S+)", DOCKERFILE.split("WORKDIR")[0]))
    for service in SERVICES:
        env = COMPOSE["services"][service]["environment"]
        assert mounts(service)[env["NUMBA_CACHE_DIR"]] in COMPOSE["volumes"], service
        for variable in ("REELSTREAM_STATE_DIR", "NUMBA_CACHE_DIR"):
            assert env[variable] == image_env[variable]
            made = re.search(r"mkdir -p ([^&]+)&& chown -R reelstream ([^\n]+)", DOCKERFILE)
            assert env[variable] in made.group(1).split(), variable
            assert any(env[variable].startswith(owned) for owned in made.group(2).split()), variable
    # The wallet's snapshots live under the state dir: on a volume of its own.
    wallet_env = COMPOSE["services"]["wallet"]["environment"]
    assert mounts("wallet")[wallet_env["REELSTREAM_STATE_DIR"]] in COMPOSE["volumes"]
    assert re.search(r"^USER (?!root|0\b)\S+", DOCKERFILE, re.M)


def test_the_image_holds_every_package_the_services_import():
    for package in ("games", "shared", "services", "ops", "reelstream", "deploy"):
        assert f"COPY {package} ./{package}" in DOCKERFILE, package


def test_every_long_running_service_has_a_health_check_on_ready_and_waits_on_health():
    one_shots = {name for name, service in COMPOSE["services"].items() if service.get("restart") == "no"}
    assert {
        "topics",
        "secure-volumes",
        "secure-pki",
        "secure-signing",
        "secure-provision",
        "secure-mounts",
        "secure-topics",
    } == one_shots
    for name, service in COMPOSE["services"].items():
        for dependency, condition in service.get("depends_on", {}).items():
            wanted = "service_completed_successfully" if dependency in one_shots else "service_healthy"
            assert condition["condition"] == wanted, (name, dependency)
        if name in one_shots:  # a job that runs once: it is waited for to complete, not probed
            continue
        check = service["healthcheck"]
        assert not check.get("disable"), name
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
    for name in SERVICES:
        service = COMPOSE["services"][name]
        assert service["healthcheck"]["test"][-1] == "ready", name
        assert service["environment"]["REELSTREAM_HTTP_HOST"] == "0.0.0.0"
    monitor = COMPOSE["services"]["monitor"]  # faust's own web port: its /ready is there
    assert monitor["healthcheck"]["test"][-2:] == ["ready", monitor["ports"][0].rsplit(":", 1)[1]]
    assert set(COMPOSE["services"]["spin"]["depends_on"]) >= {"wallet", "jackpot", "kafka", "topics"}
    assert "postgres" in COMPOSE["services"]["projector"]["depends_on"]


def test_prometheus_scrapes_every_service_on_its_port_and_grafana_is_provisioned():
    prometheus = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    discovery = prometheus["scrape_configs"][0]["dns_sd_configs"][0]
    assert set(discovery["names"]) == set(SERVICES)
    assert {str(discovery["port"])} == {COMPOSE["services"][n]["environment"]["REELSTREAM_HTTP_PORT"] for n in SERVICES}
    grafana = COMPOSE["services"]["grafana"]
    assert any(v.startswith("./deploy/grafana/provisioning:") for v in grafana["volumes"])
    assert any(v.startswith("./deploy/grafana/dashboards:") for v in grafana["volumes"])
    assert mounts("prometheus")["/prometheus"] in COMPOSE["volumes"]


def test_the_dashboard_is_current_and_names_only_exported_series():
    from deploy.grafana import build_dashboard
    from services.spin.adapters.latency import SPIN_SECONDS

    assert (ROOT / "deploy" / "grafana" / "dashboards" / "reelstream.json").read_text() == build_dashboard.render()
    exported = {collector._name for collector in vars(metrics).values() if hasattr(collector, "_name")}
    exported.add(SPIN_SECONDS._name)
    titles = [panel["title"] for panel in build_dashboard.dashboard()["panels"]]
    for wanted in ("Throughput", "p50 / p99", "lag", "Rejections", "pool levels"):
        assert any(wanted in title for title in titles), wanted
    for panel in build_dashboard.dashboard()["panels"]:
        for target in panel["targets"]:
            for series in re.findall(r"reelstream_[a-z_]+", target["expr"]):
                base = re.sub(r"_(total|bucket|count|sum)$", "", series)
                assert base in exported, series


def test_the_hostile_input_alerts_are_loaded_and_name_only_exported_series():
    prometheus = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    assert "/etc/prometheus/alerts.yml" in prometheus["rule_files"]
    assert mounts("prometheus")["/etc/prometheus/alerts.yml"] == "./deploy/prometheus/alerts.yml"
    rules = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())["groups"][0]["rules"]
    exported = {collector._name for collector in vars(metrics).values() if hasattr(collector, "_name")}
    for rule in rules:
        named = set(re.findall(r"(reelstream_[a-z_]+)_total", rule["expr"]))
        assert named and named <= exported, rule["alert"]
        assert rule["annotations"]["runbook"] == "docs/security.md#runbook-a-hostile-record"


def test_the_local_open_wager_alert_is_the_kubernetes_rule_per_scraped_instance():
    from deploy.k8s.manifests import OPEN_WAGER_ALERT, RULES

    groups = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())["groups"]
    (local,) = [rule for group in groups for rule in group["rules"] if rule["alert"] == OPEN_WAGER_ALERT]
    (cluster,) = [rule for rule in RULES if rule["alert"] == OPEN_WAGER_ALERT]
    assert local["expr"] == cluster["expr"].replace("by (pod)", "by (instance)")
    assert (local["for"], local["labels"]) == (cluster["for"], cluster["labels"])


def test_the_dashboard_names_no_datasource_uid_but_asks_for_one():
    from deploy.grafana import build_dashboard

    board = build_dashboard.dashboard()
    assert [v["type"] for v in board["templating"]["list"]] == ["datasource"]
    uids = {t["datasource"]["uid"] for p in board["panels"] for t in p["targets"]} | {
        p["datasource"]["uid"] for p in board["panels"]
    }
    assert uids == {"${datasource}"}


def test_in_the_secure_profile_only_the_seamless_saga_has_a_route_off_the_host():
    networks = COMPOSE["networks"]
    assert networks["secure-internal"] == {"internal": True}
    secure = {
        name: service
        for name, service in COMPOSE["services"].items()
        if "secure" in service.get("profiles", []) and service.get("network_mode") != "none"
    }
    leaving = {
        name
        for name, service in secure.items()
        for network in service.get("networks", ["default"])
        if not compose_check.without_route_out(networks.get(network))
    }
    assert leaving == {"seamless-saga-secure"}
    assert COMPOSE["services"]["seamless-saga-secure"]["networks"] == ["secure-internal", "secure-egress"]
    assert all("secure-internal" in service["networks"] for service in secure.values())
    assert "internal" not in networks["secure-egress"]


def test_the_compose_file_and_the_dockerfile_break_no_rule():
    assert compose_check.problems(COMPOSE_TEXT, DOCKERFILE) == []


def _mutated(where: str, text: str, replacement: str) -> tuple[str, str]:
    original = COMPOSE_TEXT if where == "compose" else DOCKERFILE
    assert text in original, text
    changed = original.replace(text, replacement, 1)
    return (changed, DOCKERFILE) if where == "compose" else (COMPOSE_TEXT, changed)


@pytest.mark.parametrize(
    ("where", "text", "replacement", "named"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS]
)
def test_the_rules_name_each_harmful_change(where, text, replacement, named):
    """Each change of docs/operations.md's "Compose and image mutations", applied to the files' text in memory, is
    named by a rule."""
    found = compose_check.problems(*_mutated(where, text, replacement))
    assert any(named in problem for problem in found), found
