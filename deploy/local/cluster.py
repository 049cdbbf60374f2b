"""A local Kafka cluster of several KRaft nodes (broker + controller each) on one machine: separate ports, log dirs
and `HEAP` heaps, replication factor 3 and min.insync.replicas 2, to prove the services on a real multi-broker
cluster (`reelstream infra up --brokers 3`). Node i listens on base_port + 2i, its controller on base_port + 2i + 1."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from deploy.local import procs
from deploy.local.exceptions import InfraError
from deploy.local.kafka import _cluster_id, _java_argv, ensure_jars
from deploy.local.paths import TEMPLATES, InfraPaths
from deploy.local.tools import find_java, who_listens
from shared.waits import WaitTimeout, wait_until

HEAP = "512m"
START_TIMEOUT_S = 120
STOP_TIMEOUT_S = 30
_MARKER = "kafka.Kafka"
Echo = Callable[[str], None]


@dataclass(frozen=True)
class Node:
    node_id: int
    host: str
    port: int
    controller_port: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Cluster:
    nodes: tuple[Node, ...]

    @property
    def bootstrap(self) -> str:
        return ",".join(node.address for node in self.nodes)

    @property
    def voters(self) -> str:
        return ",".join(f"{n.node_id}@{n.host}:{n.controller_port}" for n in self.nodes)


def cluster(brokers: int, base_port: int, host: str = "127.0.0.1") -> Cluster:
    assert 1 <= brokers <= 9, brokers
    return Cluster(tuple(Node(i + 1, host, base_port + 2 * i, base_port + 2 * i + 1) for i in range(brokers)))


def node_dir(paths: InfraPaths, node: Node) -> Path:
    return paths.state / "kafka-cluster" / f"node-{node.node_id}"


def render(paths: InfraPaths, at: Cluster, node: Node) -> Path:
    replication = min(3, len(at.nodes))
    text = (
        (TEMPLATES / "cluster.properties")
        .read_text()
        .format(
            node_id=node.node_id,
            voters=at.voters,
            host=node.host,
            port=node.port,
            controller_port=node.controller_port,
            log_dirs=node_dir(paths, node) / "data",
            replication_factor=replication,
            min_insync=max(1, replication - 1),
        )
    )
    config = node_dir(paths, node) / "server.properties"
    config.write_text(text)
    return config


def running_pid(paths: InfraPaths, node: Node) -> int | None:
    return procs.read_pid(node_dir(paths, node) / "kafka.pid", _MARKER)


def start_node(paths: InfraPaths, at: Cluster, node: Node, echo: Echo, environ: Mapping[str, str] | None = None) -> int:
    """Start one node (formatting its storage the first time with the cluster's id) in `environ` (default: this
    process's; deploy/local/clock.py sets one node's wall clock off); its pid."""
    folder = node_dir(paths, node)
    folder.mkdir(parents=True, exist_ok=True)
    pid = running_pid(paths, node)
    if pid is not None:
        return pid
    for port in (node.port, node.controller_port):
        if procs.port_open(node.host, port):
            raise InfraError(f"port {port} is taken by {who_listens(port)}, not by a node this state dir started")
    java = find_java()
    ensure_jars(paths, echo)
    config = render(paths, at, node)
    if not (folder / "data" / "meta.properties").exists():
        cluster_id = _cluster_id(paths.state / "kafka-cluster")
        argv = _java_argv(
            java, paths, folder, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(config), heap=HEAP
        )
        result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise InfraError(f"StorageTool format of node {node.node_id} failed:\n{result.stdout}\n{result.stderr}")
    argv = _java_argv(java, paths, folder, "kafka.Kafka", str(config), heap=HEAP)
    pid = procs.spawn_daemon(argv, folder / "kafka.out", folder / "kafka.pid", folder, dict(environ or os.environ))
    echo(f"kafka node {node.node_id}: started pid {pid} on {node.address}, log {folder / 'kafka.log'}")
    return pid


def up(paths: InfraPaths, at: Cluster, echo: Echo, environ_of: Mapping[int, Mapping[str, str]] | None = None) -> None:
    """Start every node (`environ_of`: the environment of some, by node id) and wait until the cluster is ready."""
    (paths.state / "kafka-cluster").mkdir(parents=True, exist_ok=True)
    environs = environ_of or {}
    pids = {node.node_id: start_node(paths, at, node, echo, environs.get(node.node_id)) for node in at.nodes}
    wait_ready(paths, at, pids)


def wait_ready(paths: InfraPaths, at: Cluster, pids: dict[int, int], timeout_s: float = START_TIMEOUT_S) -> None:
    """Every node alive, the cluster's metadata listing all of them, and its controller able to place a topic's
    replicas on all of them (listed is not yet enough: a three-broker CI run failed on its first admin call once)."""

    def ready() -> bool:
        for node in at.nodes:
            if node.node_id in pids and not procs.alive(pids[node.node_id]):
                tail = procs.log_tail(node_dir(paths, node) / "kafka.log")
                raise InfraError(f"kafka node {node.node_id} exited during startup:\n{tail}")
        return cluster_ready(at.bootstrap, len(pids))

    what = f"{len(pids)} brokers in the metadata of {at.bootstrap}, each able to hold a replica"
    try:
        wait_until(ready, timeout_s, interval_s=0.5, what=what)
    except WaitTimeout as error:
        raise InfraError(str(error)) from error


def cluster_ready(bootstrap: str, brokers: int) -> bool:
    """Whether the metadata lists `brokers` brokers and the controller would create a topic with that many replicas
    now (a validate-only request: nothing is created); False while fewer are registered and unfenced, or while no node
    answers. One admin client a probe (the cluster is the bench's own, plaintext)."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic
    from kafka.errors import KafkaError

    try:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000, client_id="reelstream-infra")
    except (KafkaError, OSError):
        return False
    try:
        if len(admin.describe_cluster().get("brokers", [])) < brokers:
            return False
        probe = NewTopic("reelstream-ready-probe", 1, brokers)
        response = admin.create_topics([probe], validate_only=True, raise_errors=False)
        return all(topic["error_code"] == 0 for topic in response["topics"])
    except (KafkaError, OSError):
        return False
    finally:
        admin.close()


def kill_node(paths: InfraPaths, node: Node) -> None:
    """SIGKILL one node, like a machine lost (no controlled shutdown)."""
    pid = running_pid(paths, node)
    if pid is not None:
        procs.kill_group(pid)


def down(paths: InfraPaths, at: Cluster, echo: Echo) -> None:
    for node in at.nodes:
        pid = running_pid(paths, node)
        if pid is not None:
            procs.stop_group(pid, STOP_TIMEOUT_S)
            echo(f"kafka node {node.node_id}: stopped pid {pid}")
        (node_dir(paths, node) / "kafka.pid").unlink(missing_ok=True)


def recorded(paths: InfraPaths) -> Cluster | None:
    """The cluster this state dir started (from its nodes' configs), or None."""
    folders = sorted((paths.state / "kafka-cluster").glob("node-*/server.properties"))
    nodes = []
    for config in folders:
        values = dict(line.split("=", 1) for line in config.read_text().splitlines() if "=" in line and line[0] != "#")
        host, port = values["advertised.listeners"].rsplit("//", 1)[1].rsplit(":", 1)
        controller = values["listeners"].rsplit(":", 1)[1]
        nodes.append(Node(int(values["node.id"]), host, int(port), int(controller)))
    return Cluster(tuple(sorted(nodes, key=lambda n: n.node_id))) if nodes else None
