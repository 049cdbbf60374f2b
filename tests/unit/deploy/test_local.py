"""Pure pieces of the infrastructure code: config rendering, version parsing, the compose file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from deploy.local.infra import kafka_endpoint, postgres_endpoint
from deploy.local.kafka import downloaded_jar, render_config
from deploy.local.paths import REPO_ROOT, InfraPaths
from deploy.local.exceptions import InfraError
from deploy.local.postgres import find_bin_dir
from deploy.local.tools import find_java, find_maven, java_major
from reelstream.processes import SERVICES
from shared.config import LOCAL_DATABASE_URL, LOCAL_KAFKA_BOOTSTRAP

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())


def _properties(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.mark.parametrize(
    ("output", "major"),
    [('openjdk version "17.0.15" 2025-04-15', 17), ('java version "1.8.0_392"', 8), ("no version here", None)],
)
def test_java_major_version_is_read_from_java_version_output(output, major):
    assert java_major(output) == major


def test_the_rendered_broker_config_is_a_static_single_node_kraft_quorum(tmp_path: Path):
    paths = InfraPaths(state=tmp_path / "state", cache=tmp_path / "cache")
    paths.kafka_dir.mkdir(parents=True)

    config = _properties(render_config(paths, kafka_endpoint()).read_text())

    assert config["process.roles"] == "broker,controller"
    assert config["controller.quorum.voters"] == "1@127.0.0.1:9093"
    assert config["advertised.listeners"] == f"PLAINTEXT://{LOCAL_KAFKA_BOOTSTRAP}"
    assert config["auto.create.topics.enable"] == "false"
    assert config["offsets.topic.replication.factor"] == "1"
    assert config["transaction.state.log.replication.factor"] == "1"
    assert config["log.dirs"] == str(paths.kafka_dir / "data")


def test_the_local_postgres_endpoint_is_the_configured_default():
    endpoint = postgres_endpoint()
    assert (endpoint.user, endpoint.host, endpoint.port, endpoint.database) == (
        "reelstream",
        "127.0.0.1",
        5433,
        "reelstream",
    )
    assert endpoint.url == LOCAL_DATABASE_URL


def test_compose_runs_one_container_per_service_with_the_service_command():
    services = COMPOSE["services"]
    for name in SERVICES:
        assert services[name]["command"] == ["services", "run", name]
        assert set(services[name]["environment"]) >= {"KAFKA_BOOTSTRAP_SERVERS", "DATABASE_URL"}


def test_compose_uses_the_official_kafka_and_postgres_images_on_the_local_ports():
    services = COMPOSE["services"]
    assert services["kafka"]["image"] == "apache/kafka:3.9.1"
    assert services["postgres"]["image"].startswith("postgres:15")
    assert "127.0.0.1:9092:9092" in services["kafka"]["ports"]
    assert "127.0.0.1:5433:5432" in services["postgres"]["ports"]
    assert services["kafka"]["environment"]["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"


@pytest.mark.parametrize(
    ("line", "jar"),
    [
        (
            "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/kafka/kafka_2.13/3.9.1/"
            "kafka_2.13-3.9.1.jar (6.4 MB at 3.1 MB/s)",
            "kafka_2.13-3.9.1.jar",
        ),
        ("Downloaded from central: https://repo/x/y-1.0.jar (1 kB at 2 kB/s)", "y-1.0.jar"),
        ("[INFO] Downloaded from central: https://repo/x/y-1.0.pom (1 kB at 2 kB/s)", None),
        ("[INFO] Downloading from central: https://repo/x/y-1.0.jar", None),
    ],
)
def test_maven_download_lines_name_the_fetched_jar(line, jar):
    assert downloaded_jar(line) == jar


def test_a_missing_java_is_named_with_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    with pytest.raises(InfraError, match="Java not found.*openjdk-17-jre-headless"):
        find_java()


def test_a_missing_maven_is_named_with_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InfraError, match="Maven not found.*apt-get install maven"):
        find_maven()


def test_missing_postgres_binaries_are_named_with_how_to_install_them(monkeypatch, tmp_path):
    monkeypatch.setenv("PG_BIN", str(tmp_path / "no-postgres"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InfraError, match="initdb, pg_ctl.*apt-get install postgresql"):
        find_bin_dir()


def test_a_generated_kafka_cluster_id_never_starts_with_a_dash(tmp_path, monkeypatch):
    # StorageTool reads an id starting with "-" as an option (infra up failed so once): ids are drawn again, as Kafka's.
    import uuid

    from deploy.local import kafka as local_kafka

    draws = iter([uuid.UUID(bytes=b"\xf8" + bytes(15)), uuid.UUID(bytes=bytes(16))])  # "-A...", then "AAAA..."
    monkeypatch.setattr(local_kafka.uuid, "uuid4", lambda: next(draws))
    cluster_id = local_kafka._cluster_id(tmp_path)
    assert cluster_id == "A" * 22 and (tmp_path / "cluster-id").read_text() == cluster_id + "\n"
