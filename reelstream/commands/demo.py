"""`reelstream demo`: play both games from several concurrent clients against the running platform, live."""

from __future__ import annotations

import typer
from rich.console import Console

from shared.config import load_settings


def demo(
    duration_s: float = typer.Option(
        60.0, "--duration", min=1.0, max=86_400.0, help="How long the clients play, in seconds."
    ),
    players_per_game: int = typer.Option(3, min=1, max=50, help="Concurrent players per game."),
) -> None:
    """Deposit for a few players, play both games for about a minute with a live view, then print a summary."""
    from reelstream.demo.runner import run_demo

    console = Console()
    stats = run_demo(load_settings(), duration_s, players_per_game, console)
    if stats.spins == 0:
        console.print("[red]no spin settled: is the platform running? (make platform-up)[/red]")
        raise typer.Exit(1)


app = demo  # a single command, registered as `reelstream demo`
