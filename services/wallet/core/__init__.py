"""The wallet's pure core: decide(state, command, now) -> events and evolve(state, event) -> state."""
from services.wallet.core.decide import SOURCE, decide
from services.wallet.core.evolve import evolve, evolve_player, remembered
from services.wallet.core.memory import is_expired, lookup, remembers
from services.wallet.core.state import PlayerState, Remembered, WalletState, empty_state

__all__ = [
    "SOURCE",
    "PlayerState",
    "Remembered",
    "WalletState",
    "decide",
    "empty_state",
    "evolve",
    "evolve_player",
    "is_expired",
    "lookup",
    "remembered",
    "remembers",
]
