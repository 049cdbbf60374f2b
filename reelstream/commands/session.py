"""`reelstream session issue --player P [--ttl 3600]` prints a signed session token; `rotate` adds a new key."""

from __future__ import annotations

import time

import typer

from reelstream import arguments
from shared.config import load_settings
from shared.session import MAX_TTL_S, SessionKeyError, issue_token

app = typer.Typer(no_args_is_help=True)


@app.command()
def issue(
    player: str = typer.Option(
        ...,
        "--player",
        parser=arguments.player_id,
        metavar="PLAYER_ID",
        help="The pseudonymous player id the token is bound to.",
    ),
    ttl: int = typer.Option(3600, "--ttl", min=1, max=MAX_TTL_S, help="Seconds until the token expires."),
    operator: str = typer.Option(
        None, "--operator", help="Sign with this operator's newest key: the player's spins are then its own."
    ),
) -> None:
    """Print a token signed with the newest session key (the token only; it is a bearer secret)."""
    settings = load_settings()
    expires_at_ms = time.time_ns() // 1_000_000 + ttl * 1000
    try:
        typer.echo(issue_token(settings.session_secret, player, expires_at_ms, operator))
    except SessionKeyError as error:
        raise typer.BadParameter(str(error), param_hint="--operator") from None


@app.command()
def rotate(
    keep: int = typer.Option(2, min=1, max=5, help="How many of the newest old keys stay accepted."),
    operator: str = typer.Option(None, "--operator", help="The new key is this operator's (its tokens bind to it)."),
) -> None:
    """Add a new signing key to the ring in .reelstream/env; the `keep` newest old keys stay accepted, so nobody is
    logged out (keys of other operators all stay). Restart the spin service to use it. Prints key ids only."""
    import secrets

    from deploy.local.paths import default_paths
    from shared.session import KeyRing, key_ring, ring_text

    env_file = default_paths().env_file
    current = key_ring(load_settings().session_secret)
    kid = secrets.token_hex(4)
    own = [key for key in current.keys if current.operator_of(key[0]) == operator][:keep]
    others = [key for key in current.keys if current.operator_of(key[0]) != operator]
    kept = {k for k, _ in (*own, *others)}
    owners = tuple((k, op) for k, op in current.owners if k in kept) + (((kid, operator),) if operator else ())
    ring = KeyRing(((kid, secrets.token_urlsafe(32).encode()), *own, *others), owners)
    lines = [
        line
        for line in (env_file.read_text().splitlines() if env_file.exists() else [])
        if not line.startswith(("REELSTREAM_SESSION_KEYS=", "REELSTREAM_SESSION_SECRET="))
    ]
    env_file.write_text("\n".join(lines + [f"REELSTREAM_SESSION_KEYS={ring_text(ring)}"]) + "\n")
    env_file.chmod(0o600)
    typer.echo(f"signing key {ring.signing_kid}; accepted: {', '.join(kid for kid, _ in ring.keys)} (in {env_file})")
