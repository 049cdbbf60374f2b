"""docker-compose.yml as an operator relies on it (CI has no Docker to run it): valid against the Compose schema
(committed, no download), every piece of state on a named volume where the image writes it, a health check on
every long-running service on /ready, dependencies on health, and Prometheus + Grafana with the dashboard."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from shared.observability import metrics

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = ("wallet", "jackpot", "spin", "projector")
DOCKERFILE = (ROOT / "deploy" / "docker" / "Dockerfile").read_text()


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
    assert {"topics", "secure-pki", "secure-provision", "secure-topics"} == one_shots
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


def test_the_dashboard_names_no_datasource_uid_but_asks_for_one():
    from deploy.grafana import build_dashboard

    board = build_dashboard.dashboard()
    assert [v["type"] for v in board["templating"]["list"]] == ["datasource"]
    uids = {t["datasource"]["uid"] for p in board["panels"] for t in p["targets"]} | {
        p["datasource"]["uid"] for p in board["panels"]
    }
    assert uids == {"${datasource}"}
