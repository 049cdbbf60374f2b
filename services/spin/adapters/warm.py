"""A warm spare's books: every partition of the spin's topics restored once, then kept up with the committed tails in
steps cut so a takeover folds only what came after the last one (docs/snapshots.md)."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace

from aiokafka import TopicPartition

from services.spin.adapters.answers import trimmed
from services.spin.adapters.rebuild import FOLD_ORDER, fold_records, restoring
from shared.partition_log import read_range
from shared.snapshots import Restoration
from shared.warm import Follower
from services.spin.core import evolve as fold
from services.spin.core.catalog import Catalog
from shared.config import Settings
from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer, kafka_consumer
from shared.topics import SPIN_JOURNAL, SPIN_REQUESTS

log = logging.getLogger("reelstream.spin.warm")
JOURNAL_SETTLE_S = 2.0  # a step gives up (and tries again) if the journal's open transactions take longer
PRUNE_EVERY_STEPS = 20  # the books drop what left the de-duplication window this often, as the live book does


class WarmBooks(Follower):
    """The books of every spin partition, restored once and then caught up every STEP_S (`follow`, shared/warm.py);
    `take` hands one over, with the positions it reflects, the snapshot it started from and the records folded since."""

    what = "warm spin books"

    def __init__(self, settings: Settings, catalog: Catalog) -> None:
        super().__init__()
        self.settings, self.catalog = settings, catalog
        self.books: dict[int, Restoration] = {}

    def take(self, partition: int) -> Restoration | None:
        """The partition's warm book, handed over once (call after `follow` has returned)."""
        return self.books.pop(partition, None)

    def _drop(self) -> None:
        self.books.clear()
        self.ready = False

    async def _follow(self, stop: asyncio.Event) -> None:
        started = time.perf_counter()
        committed = self._reader("reelstream-spin-warm")
        everything = self._reader("reelstream-spin-warm-ends", isolation_level="read_uncommitted")
        await committed.start()
        await everything.start()
        try:
            partitions = await asyncio.to_thread(self._partitions)
            restore = restoring(self.settings, self.catalog)
            restored = await asyncio.gather(*(restore.fold(partition) for partition in partitions))
            self.books.update(zip(partitions, restored))
            log.info("warm books of partitions %s in %.0f ms", partitions, (time.perf_counter() - started) * 1000)
            committed.assign([tp for partition in partitions for tp in self._tps(partition)])
            self.ready = True
            await self._keep_up(stop, lambda: self.step(committed, everything, stop))
        finally:
            await committed.stop()
            await everything.stop()

    def _partitions(self) -> list[int]:
        """The spin's partitions (spin.requests', which its folded topics share)."""
        reader = kafka_consumer(self.settings.kafka_bootstrap_servers, role="spin", group_id=None)
        try:
            return sorted(reader.partitions_for_topic(self.settings.topic(SPIN_REQUESTS)) or ())
        finally:
            reader.close()

    def _reader(self, client_id: str, **options):
        bootstrap = self.settings.kafka_bootstrap_servers
        options = {**AIOKAFKA_READER_SAFETY, **options}
        return aio_consumer(bootstrap=bootstrap, role="spin", group_id=None, client_id=client_id, **options)

    def _tps(self, partition: int) -> list[TopicPartition]:
        return [TopicPartition(self.settings.topic(logical), partition) for logical in FOLD_ORDER]

    async def step(self, committed, everything, stop: asyncio.Event | None = None) -> bool:
        """Fold each book up to a cut: the answers' ends first, then the journal's end once every transaction that
        had written to it by then is decided; False (nothing folded) when the journal did not settle in
        JOURNAL_SETTLE_S, or `stop` came meanwhile. A killed owner's open transaction keeps the journal unsettled
        until the next owner's producer aborts it, so a go must not wait for it: the takeover folds the rest."""
        journal = [TopicPartition(self.settings.topic(SPIN_JOURNAL), partition) for partition in self.books]
        answers = [tp for partition in self.books for tp in self._tps(partition) if tp not in journal]
        ends = await committed.end_offsets(answers)
        written = await everything.end_offsets(journal)
        deadline = time.monotonic() + JOURNAL_SETTLE_S
        decided = await committed.end_offsets(journal)
        while any(decided[tp] < written[tp] for tp in journal):
            if time.monotonic() > deadline or (stop is not None and stop.is_set()):
                return False
            await asyncio.sleep(0.01)
            decided = await committed.end_offsets(journal)
        ends.update(decided)
        history = await read_range(committed, self._starts(), ends)
        # No await from here on but the fold's own yields: a step is cut short only by a cancellation (books cleared).
        logical = {self.settings.topic(name): name for name in FOLD_ORDER}
        for partition, warm in list(self.books.items()):
            tps = self._tps(partition)
            inputs = dict(warm.inputs)
            by_topic = {logical[tp.topic]: history[tp] for tp in tps}
            folded = await fold_records(warm.state, self.catalog, by_topic, inputs)
            positions = {logical[tp.topic]: max(ends[tp], warm.positions[logical[tp.topic]]) for tp in tps}
            self.books[partition] = replace(warm, folded=warm.folded + folded, positions=positions, inputs=inputs)
        self.steps += 1
        if self.steps % PRUNE_EVERY_STEPS == 0:
            for warm in self.books.values():
                book = warm.state.book
                fold.prune(book, self.catalog, fold.window_start(book.now_ms))
                trimmed(book, warm.state.answers)
        return True

    def _starts(self) -> dict[TopicPartition, int]:
        return {
            TopicPartition(self.settings.topic(logical), partition): at
            for partition, warm in self.books.items()
            for logical, at in warm.positions.items()
        }
