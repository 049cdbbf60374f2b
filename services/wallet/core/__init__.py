"""The wallet's pure core: `WalletCore` (decide(book, message, now) -> Decision, evolve(book, event), the one fold)."""

from services.wallet.core.book import WalletBook
from services.wallet.core.decide import SOURCE, WalletCore, decide_player
from services.wallet.core.evolve import evolve, evolve_player, remembered
from services.wallet.core.memory import is_expired, lookup, remembers
from services.wallet.core.state import PlayerState, Remembered, WalletState

__all__ = [
    "SOURCE",
    "PlayerState",
    "Remembered",
    "WalletBook",
    "WalletCore",
    "WalletState",
    "decide_player",
    "evolve",
    "evolve_player",
    "is_expired",
    "lookup",
    "remembered",
    "remembers",
]
