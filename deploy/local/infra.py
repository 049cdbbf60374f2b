"""`reelstream infra up|down|status`: start both local servers, write .reelstream/env, stop only what we started."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deploy.local import cluster, kafka, postgres
from deploy.local.paths import InfraPaths
from shared.config import LOCAL_DATABASE_URL, LOCAL_KAFKA_BOOTSTRAP

CONTROLLER_PORT = 9093
Echo = Callable[[str], None]


@dataclass(frozen=True)
class LocalEnv:
    kafka_bootstrap_servers: str
    database_url: str

    def lines(self) -> list[str]:
        return [f"KAFKA_BOOTSTRAP_SERVERS={self.kafka_bootstrap_servers}", f"DATABASE_URL={self.database_url}"]


def kafka_endpoint() -> kafka.KafkaEndpoint:
    host, port = LOCAL_KAFKA_BOOTSTRAP.rsplit(":", 1)
    return kafka.KafkaEndpoint(host=host, port=int(port), controller_port=CONTROLLER_PORT)


def postgres_endpoint() -> postgres.PostgresEndpoint:
    return postgres.PostgresEndpoint(url=LOCAL_DATABASE_URL)


def up(paths: InfraPaths, echo: Echo, brokers: int = 1, kafka_port: int | None = None,
       with_postgres: bool = True) -> LocalEnv:
    """The default single node on 9092, or (several brokers or another port) a cluster of `brokers` nodes."""
    paths.state.mkdir(parents=True, exist_ok=True)
    postgres_at = postgres_endpoint()
    if brokers == 1 and kafka_port is None:
        kafka_at = kafka_endpoint()
        kafka.up(paths, kafka_at, echo)
        bootstrap = kafka_at.bootstrap
    else:
        nodes = cluster.cluster(brokers, kafka_port or kafka_endpoint().port)
        cluster.up(paths, nodes, echo)
        bootstrap = nodes.bootstrap
    if with_postgres:
        postgres.up(paths, postgres_at, echo)
    env = LocalEnv(bootstrap, postgres_at.url)
    paths.env_file.write_text("\n".join(env.lines()) + "\n")
    return env


def down(paths: InfraPaths, echo: Echo) -> None:
    kafka.down(paths, echo)
    nodes = cluster.recorded(paths)
    if nodes is not None:
        cluster.down(paths, nodes, echo)
    postgres.down(paths, echo)
    paths.env_file.unlink(missing_ok=True)


def status(paths: InfraPaths) -> list[tuple[str, str, str]]:
    """(server, address, state) rows; a server is 'up' only when this checkout started it and it answers."""
    kafka_at, postgres_at = kafka_endpoint(), postgres_endpoint()
    kafka_pid, postgres_pid = kafka.running_pid(paths), postgres.running_pid(paths)
    kafka_state = "stopped"
    if kafka_pid is not None:
        kafka_state = f"up (pid {kafka_pid})" if kafka.broker_answers(kafka_at.bootstrap) else f"starting (pid {kafka_pid})"
    postgres_state = f"up (pid {postgres_pid})" if postgres_pid is not None else "stopped"
    nodes = cluster.recorded(paths)
    node_rows = [(f"kafka node {node.node_id}", node.address,
                  f"up (pid {pid})" if (pid := cluster.running_pid(paths, node)) else "stopped")
                 for node in (nodes.nodes if nodes else ())]
    single = [] if node_rows and kafka_pid is None else [("kafka", kafka_at.bootstrap, kafka_state)]
    return node_rows + single + [
        ("postgres", f"{postgres_at.host}:{postgres_at.port}/{postgres_at.database}", postgres_state),
    ]
