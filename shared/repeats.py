"""Byte-identical repeats, kept beside a core: where each recent fact was first written (its offset in the output
partition, or its record in hand until its transaction commits, or always), read back when a repeat names it
(Decision.repeated), so a repeat is the very bytes of the first time across restarts and codec changes."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field

from aiokafka import TopicPartition

from shared.invariant import invariant
from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer
from shared.partition_log import read_range

Record = tuple[bytes | None, bytes]  # (key, value) of a fact's record as first written
Where = int | Record  # its offset in the output partition, or its record while no offset is known


@dataclass
class Repeats:
    """One output partition's places of recent facts, forgotten `retention_ms` after each fact's time: at least as
    long as the core remembers what a repeat may name, when both are told the same times in the same order (None:
    only by `keep_only`, for a core that forgets on its own schedule)."""

    retention_ms: int | None
    _where: dict[str, Where] = field(default_factory=dict)
    _fifo: deque[tuple[int, str]] = field(default_factory=deque)

    def kept(self, fact_id: str, where: Where, at_ms: int) -> None:
        """A fact of `at_ms` written at `where`: its record in hand while its transaction is on its way (`committed`
        then names its offset), or the offset (or the record a snapshot kept) a restore found it at. An id kept
        twice (a repeat written again, two refusals of identical records in one millisecond) keeps its first place."""
        if self.retention_ms is not None and self._fifo and at_ms - self._fifo[0][0] > self.retention_ms:
            self.prune(at_ms)
        if fact_id not in self._where:
            self._where[fact_id] = where
            self._fifo.append((at_ms, fact_id))

    def committed(self, fact_ids: Sequence[str], offsets: Sequence[int]) -> None:
        """The transaction writing these facts (a repeat's too), in order, committed at these offsets: each one still
        in hand is found at its offset from now on (a re-emitted repeat keeps its first place)."""
        invariant(len(fact_ids) == len(offsets), "each fact written has its offset")
        where = self._where
        for fact_id, offset in zip(fact_ids, offsets):
            if type(where.get(fact_id)) is tuple:
                where[fact_id] = offset

    def where(self, fact_id: str) -> Where:
        """Where a fact a repeat names was first written."""
        found = self._where.get(fact_id)
        invariant(found is not None, "a fact a repeat names was first written where this instance knows")
        return found

    def fact(self, fact_id: str, record: Record, at_ms: int) -> None:
        """A new fact whose record stays in hand (shared/emit.py calls it as it calls the wallet's Written)."""
        self.kept(fact_id, record, at_ms)

    def again(self, fact_id: str) -> Record:
        """The first record of a fact a repeat names, kept in hand."""
        where = self.where(fact_id)
        invariant(type(where) is tuple, "a fact of a service that keeps no offsets is in hand")
        return where

    def keep_only(self, fact_ids: Container[str]) -> None:
        """Forget every fact but those the core can still name."""
        self._where = {fact_id: where for fact_id, where in self._where.items() if fact_id in fact_ids}
        self._fifo = deque(entry for entry in self._fifo if entry[1] in self._where)

    def __len__(self) -> int:
        return len(self._where)

    def places(self) -> Iterator[tuple[str, Where]]:
        """(fact id, where) of every fact kept, oldest first (what a snapshot keeps)."""
        return iter(self._where.items())

    def prune(self, now_ms: int) -> None:
        while self._fifo and now_ms - self._fifo[0][0] > self.retention_ms:
            _, fact_id = self._fifo.popleft()
            self._where.pop(fact_id, None)


class Reader:
    """Reads a partition's records back at their offsets: one consumer, started on first use (a repeat of a fact
    committed in an earlier batch is the rare path; the hot path never starts it)."""

    def __init__(self, bootstrap: str, role: str, topic: str) -> None:
        self.bootstrap, self.role, self.topic = bootstrap, role, topic
        self.read = 0  # records read back so far (a storm of repeats shows here)
        self._consumer = None
        # The loop completes the batches of different partitions concurrently, and the one consumer is started on
        # first use and assigned one partition at a time: a second read must wait for the first.
        self._lock = asyncio.Lock()

    async def records(self, partition: int, offsets: Sequence[int]) -> dict[int, Record]:
        """The committed record at each offset, by offset."""
        async with self._lock:
            return await self._records(partition, offsets)

    async def _records(self, partition: int, offsets: Sequence[int]) -> dict[int, Record]:
        if self._consumer is None:
            self._consumer = aio_consumer(bootstrap=self.bootstrap, role=self.role, group_id=None, **_READER)
            await self._consumer.start()
        tp = TopicPartition(self.topic, partition)
        self._consumer.assign([tp])
        found: dict[int, Record] = {}
        for offset in sorted(set(offsets)):
            for record in (await read_range(self._consumer, {tp: offset}, {tp: offset + 1}))[tp]:
                found[record.offset] = (record.key, record.value)
            invariant(offset in found, f"{self.topic}[{partition}]@{offset}, a repeat's first record, is readable")
        self.read += len(found)
        return found

    async def close(self) -> None:
        async with self._lock:
            if self._consumer is not None:
                await self._consumer.stop()
                self._consumer = None


_READER = {**AIOKAFKA_READER_SAFETY, "enable_auto_commit": False}
