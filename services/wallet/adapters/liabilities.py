"""What the players' balances on this instance's partitions add up to, per currency (the wallet's liability gauge)."""

from __future__ import annotations

from collections.abc import Iterable

from services.wallet.core.book import WalletBook


def liabilities_minor(partitions: Iterable[WalletBook]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for partition in partitions:
        for player in partition.players.values():
            for currency, balance_minor in player.balances_minor.items():
                totals[currency] = totals.get(currency, 0) + balance_minor
    return totals
