"""What the saga's outbox may call: each partition's rounds owing a call as its last committed batch left them, so the
outbox acts only on what is logged while the pipelined loop has batches in flight (each batch's changed rounds copied
as it is decided, applied when its transaction commits; docs/seamless.md, "The saga")."""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterator

from shared.invariant import invariant

from services.seamless_saga.core.state import OpenCall, Round, SeamlessBook, due_calls

Change = dict[str, Round | None]  # wager id -> a copy of the round as a batch left it owing, None: owing nothing


def _changes(book: SeamlessBook, wager_ids: set[str]) -> Change:
    return {wager_id: copy.copy(book.owing[wager_id]) if wager_id in book.owing else None for wager_id in wager_ids}


class CommittedOwing:
    """The rounds owing a call, by partition, as of each partition's last committed batch (or its restore); each batch
    costs what it changed, not what is owed."""

    def __init__(self) -> None:
        self.published: dict[int, dict[str, Round]] = {}
        self._calls: dict[str, int] = {}  # open call id -> its attempt, over every published round
        self._decided: dict[int, deque[Change]] = {}  # each batch decided, not yet committed, oldest first

    def restored(self, partition: int, book: SeamlessBook) -> None:
        """A partition's book as its restore folded it, before any batch of it is decided: all of it committed."""
        self.released(partition)
        book.take_touched()
        self.published[partition] = {}
        self._apply(partition, _changes(book, set(book.owing)))

    def decided(self, partition: int, book: SeamlessBook) -> None:
        self._decided.setdefault(partition, deque()).append(_changes(book, book.take_touched()))

    def committed(self, partition: int) -> None:
        waiting = self._decided.get(partition)
        invariant(bool(waiting), "a batch commits after it was decided")
        self._apply(partition, waiting.popleft())

    def released(self, partition: int) -> None:
        for round_ in self.published.pop(partition, {}).values():
            self._calls.pop(round_.open_call.call_id, None)
        self._decided.pop(partition, None)

    def is_open(self, call_id: str, attempt: int) -> bool:
        """Whether that attempt of that call is still owed as committed."""
        return self._calls.get(call_id) == attempt

    def rounds(self) -> Iterator[Round]:
        for owing in self.published.values():
            yield from owing.values()

    def due(self, now_ms: int) -> list[tuple[Round, OpenCall]]:
        """The committed calls owed now, oldest due first."""
        return due_calls(self.rounds(), now_ms)

    def _apply(self, partition: int, change: Change) -> None:
        owing = self.published.setdefault(partition, {})
        for wager_id, round_ in change.items():
            before = owing.pop(wager_id, None)
            if before is not None:
                self._calls.pop(before.open_call.call_id, None)
            if round_ is not None:
                owing[wager_id] = round_
                self._calls[round_.open_call.call_id] = round_.open_call.attempt
