"""The wallet on the shared transactional loop (pipelined): wallet.commands and wallet.internal in, the handler per
record, wallet.events out, and a snapshot in the transaction of the batch it reflects (docs/wallet.md)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from shared import snapshots
from shared.crash import crash_point
from shared.decision import Decision
from shared.inbound import Inbound
from shared.input_position import Output
from shared.loop import LoopConfig, LoopStats, loop_config, Restored, ServiceConfig, Stateless, TransactionalLoop
from shared.restoring import Report
from shared.repeats import Reader
from shared.warm import WarmStates

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import INPUTS, emitter
from services.wallet.adapters.open_wagers import Entry, OpenWagers, open_entries
from services.wallet.adapters.restore import restoring
from services.wallet.adapters.written import Written
from services.wallet.core.book import WalletBook

log = logging.getLogger("reelstream.wallet")


@dataclass(frozen=True, kw_only=True)
class WalletConfig(ServiceConfig):
    """The wallet's loop (ServiceConfig: wallet.internal is its internal-command topic) and its snapshot pace."""

    snapshot_every_records: int = 20_000
    # Rare: a snapshot costs the whole state, changed or not, and stalls the loop while it is taken.
    snapshot_every_s: float = 600.0

    def loop(self) -> LoopConfig:
        return loop_config(self, "wallet", pipelined=True)


class WalletService(Stateless[WalletBook]):
    """The wallet's part of the loop: restore from snapshot + tail, decide what the loop read, answer repeats with
    their first records, snapshot in the transaction of the batch it reflects. The positions are its own: the books
    hold none."""

    def __init__(
        self,
        config: WalletConfig,
        on_ready: Callable[[list[Report]], None] | None = None,
        warm: WarmStates | None = None,
    ) -> None:
        self.config = config
        self.warm = warm  # a spare's books, taken over on this instance's first assignment (shared/warm.py)
        self.stats = LoopStats()
        every = {"every_s": config.snapshot_every_s, "every_count": config.snapshot_every_records}
        self.restoring = restoring(
            config.bootstrap, config.events_topic, config.snapshots_topic, **every, stats=self.stats, logger=log
        )
        self.written: dict[int, Written] = {}  # each partition's facts by where they are (services/wallet/adapters)
        # The next wallet.commands offset each partition has decided (None: none recorded), and wallet.events offset
        # its book reflects, as the last committed transaction (or the restore) left them.
        self.commands_next: dict[int, int | None] = {}
        self.events_next: dict[int, int] = {}
        self.reader = Reader(config.bootstrap, "wallet", config.events_topic)
        self.emitter = emitter(config.events_topic, config.commands_topic, self.restoring)
        self._on_ready = on_ready
        self.loop: TransactionalLoop[WalletBook] = TransactionalLoop(config.loop(), self, self.stats)
        self.open_wagers = OpenWagers(self.loop.states)  # the oldest open wager's age, read at each scrape
        self.opened: dict[int, list[Entry]] = {}  # a restored partition's open wagers, indexed once it is acquired

    async def run(self, stop) -> LoopStats:
        try:
            await self.loop.run(stop)
        finally:
            await self.reader.close()
        return self.stats

    async def restore(self, partition: int) -> Restored[WalletBook]:
        restored = await self.restoring.restore(partition, self.warm.take(partition) if self.warm is not None else None)
        report: Report = restored.report
        self.written[partition] = report.held.written
        self.commands_next[partition], self.events_next[partition] = report.commands_offset, report.events_end
        self.opened[partition] = await asyncio.to_thread(open_entries, restored.state)  # a pass over every player
        return restored

    inputs = INPUTS  # wallet.commands, then wallet.internal: read by the loop (shared/inbound.py)

    def decide(self, partition: int, book: WalletBook, inbounds: Iterable[Inbound]) -> list[Output]:
        written = self.written[partition]
        written.begin()
        return self.emitter.batch(partition, book, inbounds, written, self._applied)[0]

    def derived(self, partition: int, sent: list[Output]) -> list[Output]:
        """Each operator's answer copied to its wallet.answers.<O>, in the same transaction (handler.py)."""
        return self.emitter.copies(sent)

    async def completed(self, partition: int, outputs: list[Output]) -> list[Output]:
        """The batch's repeats of facts committed before it, read back from wallet.events (shared/repeats.py)."""
        return await self.written[partition].completed(partition, outputs, self.reader)

    def committed(self, partition: int, book: WalletBook, next_offset: int, event_offsets: list[int]) -> None:
        self.written[partition].committed(event_offsets)
        if next_offset:  # 0: the batch held no wallet.commands record (only wallet.internal ones)
            self.commands_next[partition] = next_offset
        if event_offsets:
            self.events_next[partition] = event_offsets[-1] + 1

    def snapshot_image(self, partition: int, book: WalletBook, force: bool = False) -> snapshots.Image | None:
        """The book's image when a snapshot is due (shared/restoring.py)."""
        make = partial(snapshot.image, book, self.written[partition], lazy=True)
        return self.restoring.image(partition, make, force)

    async def acquired(self, restored: dict[int, Restored[WalletBook]]) -> None:
        for partition in restored:  # now in the loop's books, where the index checks its entries
            self.open_wagers.restored(self.opened.pop(partition, []))
        if self.warm is not None:  # the partitions not taken went to other instances: their books are stale from now
            self.warm.drop()
            self.warm = None
        if self._on_ready is not None:
            self._on_ready([item.report for item in restored.values()])
            self._on_ready = None

    def released(self, partition: int, book: WalletBook) -> None:
        self.restoring.released(partition)
        for kept in (self.written, self.commands_next, self.events_next, self.opened):
            kept.pop(partition, None)

    def _applied(self, book: WalletBook, found: Inbound, decision: Decision) -> None:
        self.open_wagers.decided(book, decision)
        crash_point("wallet.before_produce")  # decided and applied in memory, nothing produced yet
