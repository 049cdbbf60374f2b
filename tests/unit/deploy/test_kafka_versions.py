"""The local broker's Kafka version is a parameter: its jars, its logging and its state folder follow it, and CI fetches
the version the Kubernetes manifests run."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.k8s.manifests import KAFKA_VERSION as CLUSTER_KAFKA_VERSION
from deploy.local import kafka
from deploy.local.exceptions import InfraError
from deploy.local.paths import KAFKA_VERSION, REPO_ROOT, TEMPLATES, InfraPaths


def _paths(tmp_path: Path, version: str) -> InfraPaths:
    return InfraPaths(state=tmp_path / "state", cache=tmp_path / "cache", kafka_version=version)


def test_each_version_has_its_own_jar_folder(tmp_path):
    assert _paths(tmp_path, "3.9.1").kafka_libs == tmp_path / "cache" / "kafka-3.9.1" / "libs"
    assert _paths(tmp_path, "4.3.1").kafka_libs == tmp_path / "cache" / "kafka-4.3.1" / "libs"
    assert InfraPaths(state=tmp_path, cache=tmp_path).kafka_version == KAFKA_VERSION


@pytest.mark.parametrize(("version", "profile"), [("3.9.1", "reload4j"), ("4.3.1", "log4j2"), ("4.0.1", "log4j2")])
def test_maven_fetches_the_version_with_its_logging_binding(version, profile, tmp_path):
    argv = kafka.maven_argv("mvn", version, tmp_path)
    assert f"-Dkafka.version={version}" in argv
    assert argv[argv.index("-P") + 1] == profile
    assert profile in (TEMPLATES / "pom.xml").read_text()


def test_kafka_4_logs_through_log4j2_and_3_through_log4j1(tmp_path):
    four = kafka.logging_flags("4.3.1", tmp_path)
    three = kafka.logging_flags("3.9.1", tmp_path)
    assert four[0] == f"-Dlog4j2.configurationFile={TEMPLATES / 'log4j2.yaml'}"
    assert three[0].startswith("-Dlog4j.configuration=file:")
    assert (TEMPLATES / "log4j2.yaml").exists()


def test_a_state_folder_formatted_by_one_version_refuses_another(tmp_path):
    three = _paths(tmp_path, "3.9.1")
    (three.kafka_dir / "data").mkdir(parents=True)
    (three.kafka_dir / "data" / "meta.properties").write_text("version=1\n")
    assert kafka.formatted_by(three) == "3.9.1"  # a folder formatted before versions were recorded
    with pytest.raises(InfraError, match="holds a Kafka 3.9.1 broker.*another REELSTREAM_STATE_DIR"):
        kafka.up(_paths(tmp_path, "4.3.1"), kafka.KafkaEndpoint("127.0.0.1", 1, 2), print)


def test_ci_fetches_the_kafka_the_manifests_run():
    script = (REPO_ROOT / ".ci" / "run").read_text()
    assert f"infra fetch --kafka-version {CLUSTER_KAFKA_VERSION}" in script
