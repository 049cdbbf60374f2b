"""What the players' balances on this instance's partitions add up to, per currency (the wallet's liability gauge)."""

from __future__ import annotations

from collections.abc import Iterable

from services.wallet.core.book import WalletBook


def liabilities_minor(partitions: Iterable[WalletBook]) -> dict[str, int]:
    """The partitions' kept sums (`WalletBook.liabilities_minor`) added up: no pass over the players."""
    totals: dict[str, int] = {}
    for partition in partitions:
        for currency, total_minor in partition.liabilities_minor.items():
            totals[currency] = totals.get(currency, 0) + total_minor
    return totals
