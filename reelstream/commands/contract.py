"""`reelstream contract generate|check|verify-client|verify-wallet`: the AsyncAPI and OpenAPI documents and JSON Schemas
generated from the models; the conformance kits, run through a client command or against an operator's wallet."""

from __future__ import annotations

import asyncio
import shlex
import tempfile
from pathlib import Path

import typer

from reelstream.conformance.vectors import VECTORS_FILE, load_vectors
from reelstream.conformance.verify import Platform, local_client_properties, verify
from reelstream.conformance.wallet import CASES, Kit, verify_wallet
from seamless.client import WalletClient
from seamless.protocols import PROTOCOLS
from seamless.signatures import Signer
from shared.config import load_settings
from seamless import openapi
from shared.events import asyncapi
from shared.kafka import admin_client
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS

app = typer.Typer(no_args_is_help=True)


@app.command()
def generate() -> None:
    """Write docs/contract/asyncapi.json, schemas/*.json and openapi.json from the models."""
    for path in [*asyncapi.write(), openapi.write()]:
        typer.echo(f"wrote {path}")


@app.command()
def check() -> None:
    """Exit 1 when a generated contract file is stale."""
    stale = asyncapi.stale() + ([openapi.FILE] if openapi.stale() else [])
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


def _report(name: str, problems: list[str]) -> None:
    typer.echo(f"{'FAIL' if problems else 'PASS'} {name}")
    for problem in problems:
        typer.echo(f"     {problem}")


@app.command("verify-wallet")
def verify_wallet_command(
    url: str = typer.Option(..., "--url", help="The operator wallet's base URL."),
    player: str = typer.Option(
        "", "--player", help="A test player of the operator's (never a real one): the kit bets with its money."
    ),
    private_key: Path = typer.Option(..., "--private-key", help="PEM of the key reelstream signs with."),
    key_id: str = typer.Option(..., "--key-id", help="The id the wallet knows that key by."),
    protocol: str = typer.Option("hub88", "--protocol", help="hub88 or reelstream."),
    currency: str = typer.Option("EUR", "--currency", help="The test player's currency."),
    stake_minor: int = typer.Option(100, "--stake-minor", min=1, help="The stake of each bet, in minor units."),
    token: str = typer.Option(None, "--token", help="The test player's session token, if the wallet wants one."),
    timeout_s: float = typer.Option(5.0, "--timeout-s", help="The timeout of each call."),
) -> None:
    """Run the seamless-wallet protocol's cases against an operator's wallet with a named test player; exit 1 on any
    failure (each line names its case)."""
    if not player.strip():
        raise typer.BadParameter("the kit runs only against a named test player (--player)", param_hint="--player")
    if protocol not in PROTOCOLS:
        raise typer.BadParameter(f"one of {', '.join(PROTOCOLS)}", param_hint="--protocol")
    signer = Signer.from_pem(key_id, private_key.read_bytes())

    async def run() -> int:
        async with WalletClient(url, PROTOCOLS[protocol], signer, timeout_s=timeout_s) as client:
            kit = Kit(client, player, currency, stake_minor, token)
            return await verify_wallet(kit, _report)

    failed = asyncio.run(run())
    typer.echo(f"{len(CASES) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)
