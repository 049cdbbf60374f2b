"""Rising Joker (EUR): 5x3 reels, 10 fixed lines, expanding joker, star scatter and the Diamond Mystery trigger."""

from __future__ import annotations

from functools import lru_cache

from games.rising_joker.engine import RisingJokerEngine
from games.rising_joker.model import CURRENT_VERSION, load_model


@lru_cache(maxsize=None)
def engine_for_model(model_version: str) -> RisingJokerEngine:
    """The engine of a released model version (for replays and audits of recorded spins)."""
    return RisingJokerEngine(load_model(model_version))


def current_engine() -> RisingJokerEngine:
    """The engine new spins are played with."""
    return engine_for_model(CURRENT_VERSION)
