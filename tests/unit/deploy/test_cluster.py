"""The local multi-broker cluster's layout (pure): ports, quorum, replication settings, and reading it back."""

from __future__ import annotations

from pathlib import Path

from deploy.local import cluster
from deploy.local.paths import InfraPaths


def _properties(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def test_three_nodes_get_their_own_ports_log_dirs_and_one_quorum(tmp_path: Path):
    paths = InfraPaths(state=tmp_path, cache=tmp_path / "cache")
    at = cluster.cluster(3, 29092)
    assert at.bootstrap == "127.0.0.1:29092,127.0.0.1:29094,127.0.0.1:29096"
    configs = []
    for node in at.nodes:
        cluster.node_dir(paths, node).mkdir(parents=True)
        configs.append(_properties(cluster.render(paths, at, node).read_text()))
    assert [c["node.id"] for c in configs] == ["1", "2", "3"]
    assert len({c["log.dirs"] for c in configs}) == 3
    assert {c["controller.quorum.voters"] for c in configs} == {"1@127.0.0.1:29093,2@127.0.0.1:29095,3@127.0.0.1:29097"}
    for config in configs:
        assert config["default.replication.factor"] == "3"
        assert config["min.insync.replicas"] == "2"
        assert config["transaction.state.log.min.isr"] == "2"
        assert config["offsets.topic.replication.factor"] == "3"
    assert cluster.recorded(paths) == at


def test_one_node_has_replication_one(tmp_path: Path):
    paths = InfraPaths(state=tmp_path, cache=tmp_path / "cache")
    at = cluster.cluster(1, 29192)
    cluster.node_dir(paths, at.nodes[0]).mkdir(parents=True)
    config = _properties(cluster.render(paths, at, at.nodes[0]).read_text())
    assert at.voters == "1@127.0.0.1:29193"
    assert config["default.replication.factor"] == config["min.insync.replicas"] == "1"


def test_nothing_recorded_in_an_empty_state_dir(tmp_path: Path):
    assert cluster.recorded(InfraPaths(state=tmp_path, cache=tmp_path)) is None
