"""What the spin core needs to know about games and jackpot networks, as one injectable port."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from games import GameEngine
from shared.pools import NetworkConfig


@dataclass(frozen=True)
class Catalog:
    """engine(game) plays new spins (KeyError when unknown); engine_for_model re-derives recorded ones."""

    engine: Callable[[str], GameEngine]
    engine_for_model: Callable[[str, str], GameEngine]
    network_for_game: Callable[[str], NetworkConfig]

    def current(self, game: str) -> GameEngine | None:
        try:
            return self.engine(game)
        except KeyError:
            return None


def registry_catalog() -> Catalog:
    """The production catalog: the game registry and the one pool configuration."""
    from games import registry
    from shared.pools import load_pools

    return Catalog(registry.engine, registry.engine_for_model, load_pools().network_for_game)
