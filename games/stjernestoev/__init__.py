"""Stjernestøv (DKK): cluster pays on a three-ring star board, cascades, a carried bonus ring, the Astro Flash wheel."""

from __future__ import annotations

from functools import lru_cache

from games.stjernestoev.engine import StjernestoevEngine
from games.stjernestoev.model import CURRENT_VERSION, load_model


@lru_cache(maxsize=None)
def engine_for_model(model_version: str) -> StjernestoevEngine:
    """The engine of a released model version (for replays and audits of recorded spins)."""
    return StjernestoevEngine(load_model(model_version))


def current_engine() -> StjernestoevEngine:
    """The engine new spins are played with."""
    return engine_for_model(CURRENT_VERSION)
