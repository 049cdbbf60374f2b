"""`reelstream session issue --player P [--ttl 3600]`: print a signed session token for tests and demos."""
from __future__ import annotations

import time

import typer

from reelstream import arguments
from shared.config import load_settings
from shared.session import MAX_TTL_S, issue_token

app = typer.Typer(no_args_is_help=True)


@app.command()
def issue(
    player: str = typer.Option(..., "--player", parser=arguments.player_id, metavar="PLAYER_ID",
                               help="The pseudonymous player id the token is bound to."),
    ttl: int = typer.Option(3600, "--ttl", min=1, max=MAX_TTL_S, help="Seconds until the token expires."),
) -> None:
    """Print a token signed with REELSTREAM_SESSION_SECRET (the token only; it is a bearer secret)."""
    settings = load_settings()
    expires_at_ms = time.time_ns() // 1_000_000 + ttl * 1000
    typer.echo(issue_token(settings.session_secret, player, expires_at_ms))
