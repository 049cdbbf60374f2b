"""`reelstream recall --player P --last N`: a player's last games with every step (GLI-19 §4.14)."""
from __future__ import annotations

import asyncio
import json
import sys

import typer
from rich.console import Console

from reelstream import arguments

_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _from_topics(player: str) -> list[dict]:
    from services.audit.adapters.topics import read_topics
    from services.audit.core.collect import collect
    from shared.config import load_settings
    from shared.events.spin import SpinSettled

    settings = load_settings()
    records, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=("spin.events",))
    facts = collect([r for r in records if r.key == player.encode()])
    return [fact.data.model_dump(mode="json") for fact in facts.of_type(SpinSettled) if fact.data.player_id == player]


async def _from_projection(player: str, last: int) -> list[dict]:
    import asyncpg
    import orjson

    from shared.config import load_settings

    connection = await asyncpg.connect(load_settings().database_url, timeout=15)
    try:
        await connection.set_type_codec("jsonb", encoder=lambda v: orjson.dumps(v).decode(), decoder=orjson.loads, schema="pg_catalog")
        rows = await connection.fetch(
            "SELECT * FROM projection.spins WHERE player_id = $1 ORDER BY settled_at DESC, broker_time DESC LIMIT $2", player, last)
    finally:
        await connection.close()
    return [dict(row) for row in reversed(rows)]


def app(
    player: str = typer.Option(..., parser=arguments.player_id, metavar="PLAYER_ID", help="The pseudonymous player id."),
    last: int = typer.Option(10, min=1, max=1000, help="How many games, newest first."),
    source: str = typer.Option("topics", help="topics: the raw spin.events (the truth); projection: Postgres projection.spins."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Show the last N games of a player: boards, cascades, wins, jackpot, and the inputs that re-derive each one."""
    from services.audit.core.recall import recall_games

    if source not in ("topics", "projection"):
        raise typer.BadParameter("source is topics or projection")
    spins = _from_topics(player) if source == "topics" else asyncio.run(_from_projection(player, last))
    games = recall_games(spins, player, last)
    if as_json:
        sys.stdout.write(json.dumps({"player_id": player, "source": source, "games": games}, indent=2, default=str) + "\n")
        return
    _console.print(f"player {player}: last {len(games)} games (source: {'raw topic spin.events' if source == 'topics' else 'Postgres projection.spins'})")
    for game in games:
        _console.print(f"\n[bold]{game['game']}[/bold] request {game['request_id']} at {game['settled_at']} "
                       f"(model {game['model_version']}, seed {game['seed'][:16]}…)")
        _print_steps(game)


def _print_steps(game: dict) -> None:
    from reelstream.output.boards import rising_joker_grid

    wins = next((step["wins"] for step in game["steps"] if step["step"] == "line wins"), [])
    for step in game["steps"]:
        name = step["step"]
        if game["game"] == "rising-joker" and isinstance(step.get("board"), list):
            last_board = name == "joker expands" or not any(s["step"] == "joker expands" for s in game["steps"])
            _console.print(f"  - {name}:", markup=False)
            for line in rising_joker_grid(step["board"], wins if last_board else []):
                _console.print(f"      {line}", markup=False)
            continue
        details = {k: v for k, v in step.items() if k != "step"}
        _console.print(f"  - {name}: {json.dumps(details, default=str)}", markup=False)
