"""What the wallet's adapter keeps of a partition beside the core's book: where its recent facts were written on
wallet.events (shared/repeats.py), so a repeat is answered with the very record of the first time, and each batch's
facts on their way until its transaction commits."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from shared.input_position import Output
from shared.invariant import invariant
from shared.repeats import Reader, Record, Repeats

from services.wallet.core.book import WalletBook
from services.wallet.core.memory import RETENTION_MS


@dataclass(slots=True)
class Batch:
    """One decided batch: its facts in the order of its event outputs (their offsets come with its commit), and its
    repeats of facts committed before it, to read back (position among those outputs, offset)."""

    facts: list[str] = field(default_factory=list)
    unread: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Written:
    """A partition's recent facts by id, where they were first written, and its batches decided, not yet committed."""

    repeats: Repeats = field(default_factory=lambda: Repeats(RETENTION_MS))
    batches: deque[Batch] = field(default_factory=deque)

    def begin(self) -> None:
        """A batch is being decided (its outputs come next, in order)."""
        self.batches.append(Batch())

    def fact(self, fact_id: str, record: Record, recorded_ms: int) -> None:
        """A new fact of the batch being decided, its record in hand until the batch commits."""
        self.repeats.kept(fact_id, record, recorded_ms)
        self.batches[-1].facts.append(fact_id)

    def again(self, fact_id: str) -> Record | None:
        """A fact a repeat of the batch being decided names: its first record when in hand, else None (read back
        before the batch is sent: `completed`)."""
        batch, where = self.batches[-1], self.repeats.where(fact_id)
        if isinstance(where, int):
            batch.unread.append((len(batch.facts), where))
        batch.facts.append(fact_id)
        return None if isinstance(where, int) else where

    async def completed(self, partition: int, outputs: list[Output], reader: Reader) -> list[Output]:
        """The oldest uncommitted batch's outputs with each repeat's first record read back in place."""
        batch = self.batches[0]
        if not batch.unread:
            return outputs
        found = await reader.records(partition, [offset for _, offset in batch.unread])
        events = [index for index, out in enumerate(outputs) if not out.dead_letter and out.topic is None]
        done = list(outputs)
        for position, offset in batch.unread:
            key, value = found[offset]
            done[events[position]] = replace(outputs[events[position]], key=key, value=value)
        return done

    def committed(self, event_offsets: list[int]) -> None:
        """The oldest uncommitted batch committed, its event outputs at these offsets."""
        invariant(bool(self.batches), "a batch commits after it was decided")
        self.repeats.committed(self.batches.popleft().facts, event_offsets)


@dataclass
class Partition:
    """A partition as a restore rebuilds it (and a warm spare keeps it): the core's book and where its facts are."""

    book: WalletBook
    written: Written = field(default_factory=Written)
