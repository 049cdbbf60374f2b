"""`reelstream recall --player P --last N`: a player's last games with every step (GLI-19 §4.14)."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime
from pathlib import Path

import typer
from rich.console import Console

from reelstream import arguments
from reelstream.output import UNITS, Column, Format, Money, Units, View, emit

_console = Console(highlight=False)


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
        await connection.set_type_codec(
            "jsonb", encoder=lambda v: orjson.dumps(v).decode(), decoder=orjson.loads, schema="pg_catalog"
        )
        rows = await connection.fetch(
            "SELECT * FROM projection.spins WHERE player_id = $1 ORDER BY settled_at DESC, broker_time DESC LIMIT $2",
            player,
            last,
        )
    finally:
        await connection.close()
    return [dict(row) for row in reversed(rows)]


RECALL_COLUMNS = [
    Column("settled_at", "settled at", "time"),
    Column("game", "game", priority=2),
    Column("request_id", "request", "code", priority=1),
    Column("stake", "stake", "money"),
    Column("win", "win", "money"),
    Column("balance_after", "balance after", "money", priority=3),
]


def _summary_rows(games: list[dict]) -> list[dict]:
    rows = []
    for game in games:
        settled = next(step for step in game["steps"] if step["step"] == "settled")
        currency = game["currency"]
        rows.append(
            {
                "settled_at": datetime.fromisoformat(str(game["settled_at"]).replace("Z", "+00:00")),
                "game": game["game"],
                "request_id": game["request_id"],
                "currency": currency,
                "stake": Money(settled["stake_minor"], currency),
                "win": Money(settled["win_minor"], currency),
                "balance_after": _balance(settled["balance_after_minor"], currency),
            }
        )
    return rows


def app(
    player: str = typer.Option(
        ..., parser=arguments.player_id, metavar="PLAYER_ID", help="The pseudonymous player id."
    ),
    last: int = typer.Option(10, min=1, max=1000, help="How many games, newest first."),
    source: str = typer.Option(
        "topics",
        parser=lambda v: arguments.one_of(v, ("topics", "projection")),
        metavar="topics|projection",
        help="topics: the raw spin.events (the truth); projection: Postgres projection.spins.",
    ),
    format: Format = typer.Option(
        Format.table,
        "--format",
        help="table: every step with the boards drawn; json: every field; csv: one row per game.",
    ),
    units: Units = UNITS,
    html: Path = typer.Option(
        None,
        parser=arguments.output_file,
        metavar="FILE",
        help="Also write the recall as a self-contained HTML page here.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
) -> None:
    """Show the last N games of a player: boards, cascades, wins, jackpot, and the inputs that re-derive each one."""
    from reelstream.recall_view import page, terminal_lines
    from services.audit.core.recall import recall_games

    spins = _from_topics(player) if source == "topics" else asyncio.run(_from_projection(player, last))
    games = recall_games(spins, player, last)
    if not games:
        typer.echo(f"{player}: no settled game in {source}", err=True)
        raise typer.Exit(3)
    if html is not None:
        html.write_text(page(player, games))
        typer.echo(f"wrote {html}", err=True)
    if as_json or format is Format.json:
        body = {"player_id": player, "source": source, "games": games}
        sys.stdout.write(json.dumps(body, indent=2, default=str) + "\n")
    elif format is Format.csv:
        emit(View("games", RECALL_COLUMNS, _summary_rows(games)), format, units)
    else:
        origin = "raw topic spin.events" if source == "topics" else "Postgres projection.spins"
        _console.print(f"player {player}: last {len(games)} games (source: {origin})", markup=False)
        for game in games:
            _console.print("", markup=False)
            for line in terminal_lines(game):
                _console.print(line, markup=False)


def _balance(balance_minor: int | None, currency: str) -> Money | None:
    """A seamless spin's balance is unknown when its operator's wallet gave none (docs/seamless.md)."""
    return Money(balance_minor, currency) if balance_minor is not None else None
