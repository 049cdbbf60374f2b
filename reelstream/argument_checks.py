"""Argument checks attached from outside to commands whose modules another team owns (the maths commands take raw
strings and parse them deep inside): a bad value becomes a usage error before the command runs, and the command's
own logic is untouched."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import typer

Check = Callable[[Any, Any], Any]  # (ctx, value) -> value, or raise typer.BadParameter
_HEX_SEED = re.compile(r"^[0-9a-f]{64}$")


def stops(ctx, value: str | None) -> str | None:
    if value is None:
        return value
    parts = value.split(",")
    if len(parts) != 5 or not all(part.strip().isdigit() and int(part) < 100_000 for part in parts):
        raise typer.BadParameter(f"{value!r}: five reel stops, e.g. 0,12,7,3,21")
    return value


def seed_hex(ctx, value: str | None) -> str | None:
    if value is not None and not _HEX_SEED.match(value):
        raise typer.BadParameter("a seed is 64 lowercase hex digits, as recorded in spin.settled")
    return value


def state_json(ctx, value: str | None) -> str | None:
    if value is None:
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        raise typer.BadParameter("not JSON: give the player state as recorded in spin.settled, e.g. '{}'") from None
    if not isinstance(parsed, dict):
        raise typer.BadParameter("the player state is a JSON object, e.g. '{}'")
    return value


def _released(game: str, version: str) -> None:
    from games.registry import UnknownModel, engine_for_model

    try:
        engine_for_model(game, version)
    except UnknownModel:
        raise typer.BadParameter(
            f"{version!r} is not a released model version of {game}", param_hint="--model-version"
        ) from None


def model_version(ctx, value: str | None) -> str | None:
    """Checked against the game, whichever of the two the command line gave first."""
    if value is None:
        return value
    if ctx.params.get("game") is None:
        ctx.meta["reelstream.model_version"] = value
    else:
        _released(ctx.params["game"], value)
    return value


def bounded(low: int, high: int) -> Check:
    def check(ctx, value: int | None) -> int | None:
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"between {low:,} and {high:,}, got {value:,}")
        return value

    return check


def known_game(ctx, value: str) -> str:
    from games.registry import GAMES

    if value not in GAMES:
        raise typer.BadParameter(f"unknown game {value!r}; known: {', '.join(GAMES)}")
    if (version := ctx.meta.get("reelstream.model_version")) is not None:
        _released(value, version)
    return value


# command path -> parameter name -> (metavar shown in help, check)
CHECKS: dict[tuple[str, ...], dict[str, tuple[str, Check]]] = {
    ("math", "parsheet"): {"game": ("GAME", known_game)},
    ("math", "evaluate"): {
        "game": ("GAME", known_game),
        "stops": ("STOPS", stops),
        "seed": ("SEED_HEX", seed_hex),
        "state": ("STATE_JSON", state_json),
        "model_version": ("MODEL_VERSION", model_version),
        "stake_minor": ("STAKE_MINOR", bounded(1, 10**9)),
    },
    ("math", "simulate"): {
        "game": ("GAME", known_game),
        "spins": ("SPINS", bounded(1, 10**11)),
        "procs": ("PROCS", bounded(1, 64)),
        "stake_minor": ("STAKE_MINOR", bounded(1, 10**9)),
    },
}


def attach(path: tuple[str, ...], command) -> None:
    """Give `command`'s parameters the checks listed for its path (each runs after the built-in conversion)."""
    for param in command.params:
        metavar_check = CHECKS.get(path, {}).get(param.name)
        if metavar_check is None:
            continue
        metavar, check = metavar_check
        built_in = param.callback

        def callback(ctx, param, value, _check=check, _built_in=built_in):
            value = _built_in(ctx, param, value) if _built_in else value
            return _check(ctx, value)

        param.callback = callback
        param.metavar = metavar
