"""The oldest open wager on this instance's partitions (the wallet's `reelstream_wallet_oldest_open_wager_age_seconds`),
kept in an index so that a scrape reads it without visiting every player of every book."""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from shared.decision import Decision
from shared.events.envelope import epoch_ms
from shared.events.wallet import WagerDebited

from services.wallet.core.book import WalletBook

# (debited_ms, partition, player id, wager id): ordered by debit time first.
Entry = tuple[int, int, str, str]
# The fewest entries the index rebuilds at: below it a rebuild costs more than the entries it drops.
REBUILD_FLOOR = 1024


class OpenWagers:
    """A min-heap by debit time of the wagers debited on this instance's partitions (`books`: the loop's books by
    partition, the one truth of what is open). A debit or a restore adds entries; a settlement, a refund or a released
    partition removes none: an entry is checked against its book when it reaches the top, and the whole heap is
    rebuilt from what is still open once it has doubled since the last rebuild, so it holds about twice the open
    wagers at most and each entry costs O(log n) amortized, whatever the number of players."""

    def __init__(self, books: Mapping[int, WalletBook], rebuild_floor: int = REBUILD_FLOOR) -> None:
        self.books = books
        self.heap: list[Entry] = []
        self.rebuild_floor = rebuild_floor
        self.rebuild_at = rebuild_floor

    def restored(self, entries: list[Entry]) -> None:
        """A restored partition's open wagers (`open_entries` of its book), once the loop holds the book."""
        self.heap.extend(entries)
        heapq.heapify(self.heap)
        if len(self.heap) > self.rebuild_at:
            self._rebuild()

    def decided(self, book: WalletBook, decision: Decision) -> None:
        """The wagers a decision debited (its facts are already folded into `book`)."""
        for event in decision.events:
            data = event.data
            if isinstance(data, WagerDebited):
                self._add((epoch_ms(data.recorded_at), book.partition, data.player_id, str(data.transaction_id)))

    def oldest_debited_ms(self) -> int | None:
        """When the oldest wager still open was debited (broker time, epoch ms); None when none is open."""
        heap = self.heap
        while heap and not self._open(heap[0]):
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def age_s(self, now_ms: int) -> float:
        """Seconds from the oldest open wager's debit to `now_ms` (0 when none is open; a debit dated ahead of this
        host's clock counts as 0, not as a negative age)."""
        oldest_ms = self.oldest_debited_ms()
        return 0.0 if oldest_ms is None else max(0, now_ms - oldest_ms) / 1000

    def _add(self, entry: Entry) -> None:
        heapq.heappush(self.heap, entry)
        if len(self.heap) > self.rebuild_at:
            self._rebuild()

    def _rebuild(self) -> None:
        self.heap = list({entry for entry in self.heap if self._open(entry)})  # a re-restored partition's repeats too
        heapq.heapify(self.heap)
        self.rebuild_at = max(self.rebuild_floor, 2 * len(self.heap))

    def _open(self, entry: Entry) -> bool:
        debited_ms, partition, player_id, wager_id = entry
        book = self.books.get(partition)
        player = book.players.get(player_id) if book is not None else None
        wager = player.open_wagers.get(wager_id) if player is not None else None
        return wager is not None and wager.debited_ms == debited_ms


def open_entries(book: WalletBook) -> list[Entry]:
    """The index's entries of a book's open wagers: one pass over its players, so a restore runs it beside its fold
    (off the event loop), not at the index."""
    return [
        (wager.debited_ms, book.partition, player_id, wager_id)
        for player_id, player in book.players.items()
        for wager_id, wager in player.open_wagers.items()
    ]
