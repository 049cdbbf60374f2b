"""An operator's transaction list, read page by page from its wallet's feed (`WalletClient.transactions`, served by
the reference wallet at GET /transactions) as reconciliation's `Transaction`s."""

from __future__ import annotations

from typing import Any

from seamless.client import WalletClient
from seamless.exceptions import SeamlessError
from seamless.port import NoAnswerReason
from seamless.reconcile import Transaction

FEED_PAGE = 1_000
# A bound on one reading: ten million transactions; an operator with more reconciles by period.
FEED_PAGES_MAX = 10_000


class FeedUnavailable(SeamlessError):
    """The wallet's feed gave no page (no answer, an HTTP error) or a page that is not one."""


def transaction_of(row: dict[str, Any]) -> Transaction:
    """One row of the feed, its fields checked by type (money is an integer, never a float)."""
    amount_minor, rolled_back = row["amount_minor"], row["rolled_back"]
    if type(amount_minor) is not int or type(rolled_back) is not bool:
        raise FeedUnavailable(f"feed row {row.get('transaction_id')!r:.60}: amount or rolled_back mistyped")
    bet_id = row.get("bet_transaction_id")
    return Transaction(
        transaction_id=str(row["transaction_id"]),
        kind=str(row["kind"]),
        player_id=str(row["player_id"]),
        currency=str(row["currency"]),
        amount_minor=amount_minor,
        round_id=str(row["round_id"]),
        bet_transaction_id=None if bet_id is None else str(bet_id),
        status=str(row["status"]),
        rolled_back=rolled_back,
    )


async def read_feed(client: WalletClient, page: int = FEED_PAGE) -> list[Transaction]:
    """Every transaction of the wallet's feed, oldest first."""
    read: list[Transaction] = []
    since = 0
    for _ in range(FEED_PAGES_MAX):
        got = await client.transactions(since, page)
        if isinstance(got, NoAnswerReason):
            raise FeedUnavailable(f"the transaction feed of {client.base_url} gave no page: {got.value}")
        try:
            rows, next_since = got["transactions"], got["next_since"]
            read += [transaction_of(row) for row in rows]
        except (KeyError, TypeError) as error:
            raise FeedUnavailable(f"the transaction feed of {client.base_url} sent no page: {error!r:.100}") from None
        if not rows:
            return read
        if type(next_since) is not int or next_since <= since:
            raise FeedUnavailable(f"the transaction feed of {client.base_url} did not move past {since}")
        since = next_since
    raise FeedUnavailable(f"the transaction feed of {client.base_url} holds more than {FEED_PAGES_MAX} pages")
