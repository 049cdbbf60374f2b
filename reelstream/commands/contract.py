"""`reelstream contract generate|check`: the AsyncAPI document and JSON Schemas generated from the models."""
from __future__ import annotations

import typer

from shared.events import asyncapi

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
