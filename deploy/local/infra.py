"""`reelstream infra up|down|status`: start both local servers, write .reelstream/env, stop only what we started. Ports
and a second checkout's own servers: docs/operations.md."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from deploy.local import cluster, kafka, postgres
from deploy.local.paths import InfraPaths
from shared.config import LOCAL_DATABASE_URL, LOCAL_KAFKA_BOOTSTRAP

CONTROLLER_PORT = 9093
Echo = Callable[[str], None]


@dataclass(frozen=True)
class LocalEnv:
    kafka_bootstrap_servers: str
    database_url: str
    extra: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [
            f"KAFKA_BOOTSTRAP_SERVERS={self.kafka_bootstrap_servers}",
            f"DATABASE_URL={self.database_url}",
            *(f"{key}={value}" for key, value in self.extra.items()),
        ]

    def shown(self) -> list[str]:
        """The lines with secret values masked (for the terminal)."""
        return [
            line.split("=", 1)[0] + "=<secret>" if "SECRET" in line.split("=", 1)[0] else line for line in self.lines()
        ]


def kafka_endpoint(
    secure: bool = False, bench_listener: bool = False, environ: Mapping[str, str] | None = None
) -> kafka.KafkaEndpoint:
    env = os.environ if environ is None else environ
    host, default_port = LOCAL_KAFKA_BOOTSTRAP.rsplit(":", 1)
    port = int(env.get("REELSTREAM_KAFKA_PORT", default_port))
    controller = CONTROLLER_PORT if port == int(default_port) else port + 1
    return kafka.KafkaEndpoint(
        host=host,
        port=port,
        controller_port=controller,
        secure=secure,
        internal_port=controller + 1 if secure else None,
        bench_port=controller + 2 if secure and bench_listener else None,
    )


def postgres_endpoint(environ: Mapping[str, str] | None = None) -> postgres.PostgresEndpoint:
    env = os.environ if environ is None else environ
    port = env.get("REELSTREAM_POSTGRES_PORT")
    url = LOCAL_DATABASE_URL.replace(":5433/", f":{int(port)}/") if port else LOCAL_DATABASE_URL
    return postgres.PostgresEndpoint(url=url)


def session_secret(paths: InfraPaths) -> str:
    """The local platform's session-token key: random, made once per state folder, never in the source."""
    path = paths.state / "session-secret"
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
    return path.read_text().strip()


def _session_lines(paths: InfraPaths) -> dict[str, str]:
    """A ring `reelstream session rotate` wrote into the env file survives `infra up`; else the one random key."""
    if paths.env_file.exists():
        for line in paths.env_file.read_text().splitlines():
            if line.startswith("REELSTREAM_SESSION_KEYS="):
                return {"REELSTREAM_SESSION_KEYS": line.split("=", 1)[1]}
    return {"REELSTREAM_SESSION_SECRET": session_secret(paths)}


def signing_lines(paths: InfraPaths, echo: Echo) -> dict[str, str]:
    """Each writer's Ed25519 transaction-signing key, made once per state folder (shared/signing.py)."""
    from shared import signing

    folder = paths.state / "signing"
    made = signing.generate(folder)
    if made:
        echo(f"signing keys: {', '.join(made)} in {folder}")
    return {signing.SIGNING_DIR_ENV: str(folder)}


def up(
    paths: InfraPaths,
    echo: Echo,
    secure: bool = True,
    bench_listener: bool = False,
    brokers: int = 1,
    kafka_port: int | None = None,
    with_postgres: bool = True,
) -> LocalEnv:
    """The default single node (secured unless `secure=False`), or with several brokers or another port a plaintext
    cluster of `brokers` nodes (the three-broker proof; securing it is the trust boundary's next step)."""
    paths.state.mkdir(parents=True, exist_ok=True)
    if brokers != 1 or kafka_port is not None:
        return _cluster_up(paths, echo, brokers, kafka_port, with_postgres)
    if kafka.running_pid(paths) is not None and current_endpoint(paths).bench_port:
        bench_listener = True  # a running broker keeps its benchmark listener; only the security mode must match
    kafka_at, postgres_at = kafka_endpoint(secure, bench_listener), postgres_endpoint()
    broker_lines = broker_up(paths, kafka_at, echo)
    if with_postgres:
        postgres.up(paths, postgres_at, echo)
    env = LocalEnv(kafka_at.bootstrap, postgres_at.url, {**_session_lines(paths), **signing_lines(paths, echo)})
    env.extra.update(broker_lines)
    _write_env(paths, env)
    return env


def broker_up(
    paths: InfraPaths, kafka_at: kafka.KafkaEndpoint, echo: Echo, jvm: tuple[str, ...] = ()
) -> dict[str, str]:
    """Start (or find) the single broker of `paths.kafka_version` (`jvm`: flags for its JVM); when secured, every
    role's SCRAM user, ACLs and quotas and client files. Returns the env lines naming them (none for plaintext)."""
    tls = kafka.up(paths, kafka_at, echo, jvm)
    if tls is None:
        return {}
    from deploy.local.principals import provision
    from shared.kafka import admin_client

    bootstrap, security = kafka.admin_access(kafka_at, tls)
    admin = admin_client(bootstrap, client_id="reelstream-infra", security=security)
    try:
        folder = provision(admin, paths.state, tls, kafka_at.bootstrap, echo)
    finally:
        admin.close()
    # Tools and tests that name no role act as the break-glass admin locally; every service names its own.
    lines = {"REELSTREAM_KAFKA_CLIENTS_DIR": str(folder), "REELSTREAM_KAFKA_ROLE": "admin"}
    if kafka_at.bench_bootstrap:
        lines["REELSTREAM_KAFKA_BENCH_BOOTSTRAP"] = kafka_at.bench_bootstrap
    return lines


def _cluster_up(paths: InfraPaths, echo: Echo, brokers: int, kafka_port: int | None, with_postgres: bool) -> LocalEnv:
    nodes = cluster.cluster(brokers, kafka_port or kafka_endpoint().port)
    cluster.up(paths, nodes, echo)
    postgres_at = postgres_endpoint()
    if with_postgres:
        postgres.up(paths, postgres_at, echo)
    env = LocalEnv(nodes.bootstrap, postgres_at.url, {**_session_lines(paths), **signing_lines(paths, echo)})
    _write_env(paths, env)
    return env


def _write_env(paths: InfraPaths, env: LocalEnv) -> None:
    """The env file holds the session key: readable by its owner only."""
    descriptor = os.open(paths.env_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write("\n".join(env.lines()) + "\n")


def down(paths: InfraPaths, echo: Echo) -> None:
    kafka.down(paths, echo)
    nodes = cluster.recorded(paths)
    if nodes is not None:
        cluster.down(paths, nodes, echo)
    postgres.down(paths, echo)
    paths.env_file.unlink(missing_ok=True)


def running_secure(paths: InfraPaths) -> bool:
    """Whether this checkout's broker was last configured secured (its config has a CLIENT listener)."""
    return current_endpoint(paths).secure


def current_endpoint(paths: InfraPaths) -> kafka.KafkaEndpoint:
    """The endpoint as the running (or last) broker was configured: secured when its config has a CLIENT listener."""
    config = paths.kafka_dir / "server.properties"
    text = config.read_text() if config.exists() else ""
    return kafka_endpoint(secure="CLIENT://" in text, bench_listener="BENCH://" in text)


def status(paths: InfraPaths) -> list[tuple[str, str, str]]:
    """(server, address, state) rows; a server is 'up' only when this checkout started it and it answers."""
    kafka_at, postgres_at = current_endpoint(paths), postgres_endpoint()
    kafka_pid, postgres_pid = kafka.running_pid(paths), postgres.running_pid(paths)
    kafka_state = "stopped"
    if kafka_pid is not None:
        tls = kafka.tls_files(paths) if kafka_at.secure else None
        answers = kafka.broker_answers(*kafka.admin_access(kafka_at, tls))
        kafka_state = f"up (pid {kafka_pid})" if answers else f"starting (pid {kafka_pid})"
        kafka_state += ", secured (SASL_SSL, ACLs)" if kafka_at.secure else ", plaintext"
        kafka_state += f", Kafka {kafka.formatted_by(paths) or paths.kafka_version}"
    postgres_state = f"up (pid {postgres_pid})" if postgres_pid is not None else "stopped"
    nodes = cluster.recorded(paths)
    node_rows = [
        (
            f"kafka node {node.node_id}",
            node.address,
            f"up (pid {pid})" if (pid := cluster.running_pid(paths, node)) else "stopped",
        )
        for node in (nodes.nodes if nodes else ())
    ]
    single = [] if node_rows and kafka_pid is None else [("kafka", kafka_at.bootstrap, kafka_state)]
    return (
        node_rows
        + single
        + [
            ("postgres", f"{postgres_at.host}:{postgres_at.port}/{postgres_at.database}", postgres_state),
        ]
    )
