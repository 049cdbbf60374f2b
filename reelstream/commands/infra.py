"""`reelstream infra up|down|status`: the local Kafka and PostgreSQL (logic in deploy/local/)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit

from deploy.local import infra
from deploy.local.exceptions import InfraError
from deploy.local.paths import KAFKA_VERSION, InfraPaths, default_paths

app = typer.Typer(no_args_is_help=True)
_console = Console(highlight=False)
KAFKA_VERSION_OPTION = typer.Option(
    KAFKA_VERSION,
    "--kafka-version",
    help="The Kafka release (3.x or 4.x) to fetch and run; 4.3.1 is what deploy/k8s runs. Another version than the "
    "default needs its own REELSTREAM_STATE_DIR and REELSTREAM_KAFKA_PORT.",
)


def _paths(kafka_version: str) -> InfraPaths:
    from dataclasses import replace

    return replace(default_paths(), kafka_version=kafka_version)


def _echo(line: str) -> None:
    _console.print(line, markup=False)


@app.command()
def up(
    secure: bool = typer.Option(
        True,
        "--secure/--insecure",
        help="SASL_SSL client listener, mTLS controller, ACLs "
        "and one SCRAM principal per role (the default); --insecure: the plaintext broker.",
    ),
    bench_listener: bool = typer.Option(
        False,
        "--bench-listener",
        help="Secured only: also a plaintext loopback listener (REELSTREAM_KAFKA_BENCH_BOOTSTRAP) for benchmarks.",
    ),
    brokers: int = typer.Option(
        1,
        min=1,
        max=9,
        help="Kafka nodes: 3 starts a plaintext KRaft cluster of three "
        "brokers (ports --kafka-port + 0, 2, 4; 512 MB heaps; replication 3, min.insync 2).",
    ),
    kafka_port: int = typer.Option(None, min=1024, max=65000, help="First broker port (default 9092)."),
    postgres_: bool = typer.Option(True, "--postgres/--no-postgres", help="Start PostgreSQL too."),
    kafka_version: str = KAFKA_VERSION_OPTION,
) -> None:
    """Start Kafka (KRaft, 127.0.0.1:9092; --brokers 3: a local three-broker cluster) and PostgreSQL (127.0.0.1:5433);
    idempotent; writes .reelstream/env."""
    paths = _paths(kafka_version)
    started = time.monotonic()
    try:
        env = infra.up(
            paths,
            _echo,
            secure=secure,
            bench_listener=bench_listener,
            brokers=brokers,
            kafka_port=kafka_port,
            with_postgres=postgres_,
        )
    except InfraError as error:
        _console.print(f"[red]infra up failed:[/red] {error}")
        raise typer.Exit(1) from error
    _echo(f"ready in {time.monotonic() - started:.1f} s; exported in {paths.env_file}:")
    for line in env.shown():
        _echo(f"  {line}")


@app.command()
def down() -> None:
    """Stop the Kafka broker and PostgreSQL cluster this checkout started (by pid); data stays for the next `up`."""
    try:
        infra.down(default_paths(), _echo)
    except InfraError as error:
        _console.print(f"[red]infra down failed:[/red] {error}")
        raise typer.Exit(1) from error


@app.command()
def status(format: Format = FORMAT, units: Units = UNITS) -> None:
    """Show whether the local servers run and answer; exit 3 when one is stopped."""
    paths = default_paths()
    rows = [{"server": server, "address": address, "state": state} for server, address, state in infra.status(paths)]
    columns = [Column("server", "server"), Column("address", "address", "code"), Column("state", "state")]
    emit(
        View("servers", columns, rows, notes=[f"state: {paths.state}  jars: {paths.kafka_libs}"]),
        format,
        units,
        _console,
    )
    if any(row["state"] == "stopped" for row in rows):
        raise typer.Exit(3)


@app.command()
def pki(
    folder: Path = typer.Argument(..., help="Where the CA and broker files go (made once; kept when present)."),
    hostname: list[str] = typer.Option([], "--hostname", help="Another name for the broker certificate."),
    public: Path | None = typer.Option(None, help="A folder for the CA certificate alone (what clients mount)."),
    broker_group: int | None = typer.Option(
        None, min=0, max=2**31 - 1, help="The broker's group id: its key is readable by that group (FOLDER setgid)."
    ),
) -> None:
    """Make the private CA and broker certificate for a secured broker elsewhere (the compose `secure` profile)."""
    from deploy.local.pki import ensure_tls, publish_ca

    files = ensure_tls(folder, hostnames=tuple(hostname), broker_group=broker_group)
    _echo(f"CA {files.ca_cert}; broker keystore {files.broker_keystore}")
    if public is not None:
        _echo(f"CA certificate for clients: {publish_ca(files, public)}")


@app.command()
def provision(
    tls_dir: Path = typer.Option(..., help="The folder `reelstream infra pki` wrote."),
    internal: str = typer.Option(..., help="The broker's mTLS listener (the broker certificate is a super user)."),
    bootstrap: str = typer.Option(..., help="The SASL_SSL bootstrap the role files name."),
    clients: Path = typer.Option(..., help="Where <role>.properties|conf|json go."),
    client_ca: str | None = typer.Option(None, help="The CA path the role files name (default: the TLS dir's)."),
) -> None:
    """SCRAM users, ACLs and quotas of every role on a secured broker, and each role's client files."""
    from deploy.local.kafka import broker_security
    from deploy.local.pki import TlsFiles
    from deploy.local.principals import provision as provision_roles
    from shared.kafka import admin_client

    from deploy.local.kafka import START_TIMEOUT_S, broker_answers
    from shared.waits import wait_until

    tls = TlsFiles(tls_dir)
    wait_until(
        lambda: broker_answers(internal, broker_security(tls)), START_TIMEOUT_S, 1.0, what=f"kafka on {internal}"
    )
    admin = admin_client(internal, client_id="reelstream-provision", security=broker_security(tls))
    try:
        provision_roles(admin, clients.parent, tls, bootstrap, _echo, folder=clients, client_ca=client_ca)
    finally:
        admin.close()


@app.command()
def fetch(kafka_version: str = KAFKA_VERSION_OPTION) -> None:
    """Fetch the Kafka jars with Maven into the per-user cache (once; `up` does it too when needed)."""
    from deploy.local.kafka import ensure_jars

    paths = _paths(kafka_version)
    try:
        libs = ensure_jars(paths, _echo)
    except InfraError as error:
        _console.print(f"[red]infra fetch failed:[/red] {error}")
        raise typer.Exit(1) from error
    _echo(f"kafka jars: {libs}")
