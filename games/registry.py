"""Which engine plays which game now, and which engine re-derives a spin recorded under a given model version."""

from __future__ import annotations

import importlib
from functools import lru_cache

from games import GameEngine

# game id -> module exposing `current_engine() -> GameEngine` and `engine_for_model(version) -> GameEngine`.
_GAME_MODULES = {
    "rising-joker": "games.rising_joker",
    "stjernestoev": "games.stjernestoev",
}
GAMES: tuple[str, ...] = tuple(_GAME_MODULES)


class UnknownGame(KeyError):
    pass


class UnknownModel(LookupError):
    """A model version this build does not ship: the spin cannot be played (refunded), never a crash."""


@lru_cache(maxsize=None)
def _module(game: str):
    """The game's module, imported once (a spin asks for its engine several times: importlib's look-up each time cost
    ~50 µs a spin)."""
    if game not in _GAME_MODULES:
        raise UnknownGame(game)
    return importlib.import_module(_GAME_MODULES[game])


def engine(game: str) -> GameEngine:
    """The engine that plays `game` now."""
    return _module(game).current_engine()


def stakes_minor(game: str) -> tuple[int, ...]:
    """The stakes `game` is played at now (a bound on every amount the platform derives from a stake)."""
    return engine(game).stakes_minor


def engine_for_model(game: str, model_version: str) -> GameEngine:
    """The engine of a released model version, for replays and audits of old spins."""
    module = _module(game)
    if model_version not in importlib.import_module(f"{module.__name__}.model").RELEASED_VERSIONS:
        raise UnknownModel(f"{game} has no released model {model_version!r}")
    return module.engine_for_model(model_version)
