"""Which of the spin's wager commands are the seamless saga's: those naming a seamless operator. The spin names the
operator on a settlement or refund only for a seamless wager, so one rule splits wallet.internal between the ledger
and the saga, and each reads the other's commands as none of its business."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared import operators
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager

WAGER_COMMANDS = (DebitWager, PlaceWager, SettleWager, RefundWager)
WalletOf = Callable[[str | None], operators.SeamlessWallet | None]


def seamless_wager(data: Any, wallets: WalletOf = operators.seamless_wallet_of) -> bool:
    """Whether `data` is a wager command of a seamless operator's player (`wallets`: an operator's seamless wallet)."""
    return isinstance(data, WAGER_COMMANDS) and wallets(data.operator_id) is not None
