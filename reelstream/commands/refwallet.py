"""`reelstream refwallet up|down`: the reference operator wallet on this machine, `make run`'s seamless demo operator
(reelstream/demo/operator_wallet.py)."""

from __future__ import annotations

import asyncio

import typer

from reelstream import arguments, background
from reelstream.demo import operator_wallet
from shared.config import load_settings, state_dir

app = typer.Typer(no_args_is_help=True)


@app.command()
def up(
    database: str = typer.Option(
        operator_wallet.DATABASE,
        parser=arguments.database_name,
        help="Its own database on the server of DATABASE_URL (made when missing).",
    ),
    timeout_s: float = typer.Option(60.0, min=1.0, max=600.0, help="How long to wait for it to serve."),
) -> None:
    """Start the reference wallet in the background (idempotent), with a signing key made once, and write the
    operators file naming demo-b seamless on it (services read it from REELSTREAM_OPERATORS_FILE)."""
    files = operator_wallet.WalletFiles(state_dir())
    if (pid := background.running_pid(files.state_dir, operator_wallet.NAME)) and files.operators_file.exists():
        typer.echo(f"{operator_wallet.NAME}: already running (pid {pid}); operators: {files.operators_file}")
        return
    background.stop(files.state_dir, operator_wallet.NAME, typer.echo)  # one without its operators file: anew
    operator_wallet.ensure_key(files)
    url = asyncio.run(operator_wallet.ensure_database(load_settings().database_url, database))
    try:
        wallet, address = operator_wallet.start(files, url, timeout_s)
    except (RuntimeError, TimeoutError) as error:
        typer.echo(f"{operator_wallet.NAME}: not serving: {error}", err=True)
        raise typer.Exit(1) from None
    background.remember(files.state_dir, operator_wallet.NAME, wallet.process.pid)
    typer.echo(
        f"{operator_wallet.NAME}: serving {address} (pid {wallet.process.pid}, log {wallet.log_path}); "
        f"operators: {files.operators_file} ({operator_wallet.SEAMLESS_OPERATOR} seamless on it)"
    )


@app.command()
def down() -> None:
    """Stop the reference wallet that `up` started (its database and key stay for the next `up`)."""
    background.stop(state_dir(), operator_wallet.NAME, typer.echo)
