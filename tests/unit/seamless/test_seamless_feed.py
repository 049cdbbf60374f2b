"""The operator's transaction list read from its feed: every page in order until an empty one; a page with no
answer, a mistyped amount or a position that does not advance is refused, never read as a shorter list."""

from __future__ import annotations

import pytest

from seamless.feed import FeedUnavailable, read_feed, transaction_of
from seamless.port import NoAnswerReason


def _row(position: int, **changes) -> dict:
    row = {
        "position": position,
        "transaction_id": f"00000000-0000-0000-0000-{position:012d}",
        "kind": "bet",
        "player_id": "p-1",
        "currency": "EUR",
        "amount_minor": 100,
        "bet_transaction_id": None,
        "round_id": f"round-{position}",
        "status": "OK",
        "rolled_back": False,
        "balance_after_minor": 900,
    }
    return row | changes


class _Feed:
    """A wallet's feed of `rows`, `page` at a time, or `broken` in place of its second page."""

    base_url = "http://wallet.test"

    def __init__(self, rows: list[dict], broken=None) -> None:
        self.rows, self.broken, self.asked = rows, broken, []

    async def transactions(self, since: int, limit: int):
        self.asked.append(since)
        if self.broken is not None and len(self.asked) == 2:
            return self.broken
        page = [row for row in self.rows if row["position"] > since][:limit]
        return {"transactions": page, "next_since": page[-1]["position"] if page else since}


async def test_every_page_is_read_in_order():
    feed = _Feed([_row(n) for n in range(1, 8)])
    read = await read_feed(feed, page=3)
    assert [t.round_id for t in read] == [f"round-{n}" for n in range(1, 8)]
    assert feed.asked == [0, 3, 6, 7]


@pytest.mark.parametrize(
    "broken",
    [NoAnswerReason.TIMEOUT, {"transactions": [_row(9)], "next_since": 2}, {"rows": []}],
    ids=["no answer", "position not advancing", "no page"],
)
async def test_a_broken_page_is_refused(broken):
    with pytest.raises(FeedUnavailable):
        await read_feed(_Feed([_row(n) for n in range(1, 8)], broken), page=2)


@pytest.mark.parametrize("changes", [{"amount_minor": 100.0}, {"rolled_back": 1}])
def test_a_mistyped_row_is_refused(changes):
    with pytest.raises(FeedUnavailable, match="mistyped"):
        transaction_of(_row(1, **changes))
