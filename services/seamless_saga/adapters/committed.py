"""What the saga's outbox may call: each partition's rounds owing a call as its last committed batch left them, so the
outbox acts only on what is logged while the pipelined loop has batches in flight (copied as a batch is decided,
published when its transaction commits; docs/seamless.md, "The saga")."""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterator

from shared.invariant import invariant

from services.seamless_saga.core.state import OpenCall, Round, SeamlessBook

Owing = dict[str, Round]  # wager id -> a copy of the round as a batch left it (its open call set)


def _owing(book: SeamlessBook) -> Owing:
    return {wager_id: copy.copy(round_) for wager_id, round_ in book.owing.items()}


class CommittedOwing:
    """The rounds owing a call, by partition, as of each partition's last committed batch (or its restore)."""

    def __init__(self) -> None:
        self.published: dict[int, Owing] = {}
        self._decided: dict[int, deque[Owing]] = {}  # each batch decided, not yet committed, oldest first

    def restored(self, partition: int, book: SeamlessBook) -> None:
        """A partition restored from its log: all it holds is committed (batches decided since keep their turn)."""
        if not self._decided.get(partition):
            self.published[partition] = _owing(book)

    def decided(self, partition: int, book: SeamlessBook) -> None:
        self._decided.setdefault(partition, deque()).append(_owing(book))

    def committed(self, partition: int) -> None:
        waiting = self._decided.get(partition)
        invariant(bool(waiting), "a batch commits after it was decided")
        self.published[partition] = waiting.popleft()

    def released(self, partition: int) -> None:
        self.published.pop(partition, None)
        self._decided.pop(partition, None)

    def rounds(self) -> Iterator[Round]:
        for owing in self.published.values():
            yield from owing.values()

    def due(self, now_ms: int) -> list[tuple[Round, OpenCall]]:
        """The committed calls owed now, oldest due first."""
        owed = [(round_, round_.open_call) for round_ in self.rounds() if round_.open_call.due_ms <= now_ms]
        return sorted(owed, key=lambda pair: pair[1].due_ms)
