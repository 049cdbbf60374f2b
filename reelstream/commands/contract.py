"""`reelstream contract generate|check|verify-client`: the AsyncAPI document and JSON Schemas generated from the
models, and the conformance kit run through any client command."""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

import typer

from reelstream.conformance.vectors import VECTORS_FILE, load_vectors
from reelstream.conformance.verify import Platform, local_client_properties, verify
from shared.config import load_settings
from shared.events import asyncapi
from shared.kafka import admin_client
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS

app = typer.Typer(no_args_is_help=True)


@app.command()
def generate() -> None:
    """Write docs/contract/asyncapi.json and docs/contract/schemas/*.json from the payload models."""
    for path in asyncapi.write():
        typer.echo(f"wrote {path}")


@app.command()
def check() -> None:
    """Exit 1 when a generated contract file is stale."""
    stale = asyncapi.stale()
    for rel in stale:
        typer.echo(f"stale: docs/contract/{rel}", err=True)
    raise typer.Exit(1 if stale else 0)


@app.command("verify-client")
def verify_client(
    cmd: str = typer.Option(..., "--cmd", help="The client command; the kit appends the arguments of each step."),
    properties: Path = typer.Option(None, help="The client's .properties (default: this platform's brokers)."),
    vectors: Path = typer.Option(VECTORS_FILE, help="The conformance vectors."),
    only: list[str] = typer.Option([], "--only", help="Run only these vectors (by name)."),
    answers_topic: str = typer.Option(
        SPIN_EVENTS, "--answers-topic", help="Where the client reads answers (spin.answers.<operator> for its role)."
    ),
) -> None:
    """Drive a client command through the conformance vectors against the running platform; exit 1 on any failure."""
    settings = load_settings()
    chosen = [v for v in load_vectors(vectors) if not only or v.name in only]
    if not chosen:
        raise typer.BadParameter(f"no vector named {only}")
    admin = admin_client(settings.kafka_bootstrap_servers, client_id="reelstream-verify-client")
    try:
        described = admin.describe_topics([settings.topic(SPIN_REQUESTS)])
    finally:
        admin.close()
    platform = Platform(
        settings.kafka_bootstrap_servers,
        settings.topic_prefix,
        settings.session_secret,
        len(described[0]["partitions"]),
        answers_topic,
    )
    with tempfile.TemporaryDirectory(prefix="reelstream-verify-") as scratch:
        if properties is None:
            properties = local_client_properties(settings.kafka_bootstrap_servers, Path(scratch))

        def report(name: str, problems: list[str]) -> None:
            typer.echo(f"{'FAIL' if problems else 'PASS'} {name}")
            for problem in problems:
                typer.echo(f"     {problem}")

        failed = verify(shlex.split(cmd), tuple(chosen), platform, properties, report)
    typer.echo(f"{len(chosen) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)
