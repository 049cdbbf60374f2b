"""The wallet on the shared transactional loop (shared/loop.py, pipelined): wallet.commands → the handler per record,
in partition order → wallet.events, with a snapshot of a partition's book whenever it is quiet and one is due.

A snapshot is written only when nothing of its partition is in flight (the book is then what Kafka committed), so a
restore from it plus the tail of wallet.events gives the live book back exactly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from shared import observability
from shared.crash import crash_point
from shared.loop import LoopConfig, LoopStats, loop_config, Restored, TransactionalLoop

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import Output, handle
from services.wallet.adapters.restore import Restored as RestoreReport
from services.wallet.adapters.restore import restore_partition
from services.wallet.core.book import WalletBook

log = logging.getLogger("reelstream.wallet")


@dataclass(frozen=True)
class WalletConfig:
    bootstrap: str
    commands_topic: str
    events_topic: str
    dlq_topic: str
    group_id: str
    snapshot_dir: Path | None
    batch_max: int = 2000
    poll_ms: int = 50
    session_timeout_ms: int | None = None
    snapshot_every_records: int = 20_000
    snapshot_every_s: float = 30.0

    def loop(self) -> LoopConfig:
        return loop_config(self, "wallet", pipelined=True)


@dataclass
class Stats(LoopStats):
    snapshots: int = 0
    snapshot_s: float = 0.0


class WalletService:
    """The wallet's part of the loop: restore from snapshot + tail, decide through the handler, snapshot when quiet."""

    def __init__(self, config: WalletConfig, on_ready: Callable[[list[RestoreReport]], None] | None = None) -> None:
        self.config = config
        self.stats = Stats()
        self.snapshot_at: dict[int, float] = {}
        self._on_ready = on_ready
        self.loop: TransactionalLoop[WalletBook] = TransactionalLoop(config.loop(), self, self.stats)

    async def run(self, stop) -> Stats:
        await self.loop.run(stop)
        return self.stats

    async def restore(self, partition: int) -> Restored[WalletBook]:
        report = await restore_partition(
            self.config.bootstrap, self.config.events_topic, partition, self.config.snapshot_dir
        )
        self.snapshot_at[partition] = time.monotonic()
        log.info(
            "partition %d restored in %.0f ms: snapshot at %s, %d events folded, %d quarantined",
            partition,
            report.millis,
            report.snapshot_offset,
            report.folded,
            len(report.quarantined),
        )
        return Restored(report.state, report.state.commands_offset, report)

    def decide(self, partition: int, book: WalletBook, records: list[Any]) -> list[Output]:
        outputs: list[Output] = []
        partitions = self.loop.input_partitions()
        for record in records:
            with observability.consume_span("wallet command", record.headers, partition, record.value) as traced:
                found = handle(
                    book,
                    record.key,
                    record.value,
                    record.timestamp,
                    (record.topic, record.partition, record.offset),
                    list(record.headers or ()),
                    partitions,
                )
            outputs.extend(replace(out, headers=[*out.headers, *traced]) if traced else out for out in found)
            crash_point("wallet.before_produce")  # decided and applied in memory, nothing produced yet
        return outputs

    def committed(self, partition: int, book: WalletBook, next_offset: int, event_offsets: list[int]) -> None:
        book.commands_offset = next_offset
        if event_offsets:
            book.events_offset = event_offsets[-1] + 1

    def snapshot_due(self, partition: int, book: WalletBook) -> bool:
        if self.config.snapshot_dir is None or not book.unsnapshotted:
            return False
        elapsed = time.monotonic() - self.snapshot_at.get(partition, 0.0)
        return elapsed >= self.config.snapshot_every_s or book.unsnapshotted >= self.config.snapshot_every_records

    def quiet(self, partition: int, book: WalletBook, force: bool = False) -> None:
        """Called with nothing of the partition in flight (its book = what Kafka committed)."""
        wanted = force and book.unsnapshotted and self.config.snapshot_dir is not None
        if self.snapshot_due(partition, book) or wanted:
            started = time.perf_counter()
            snapshot.write(self.config.snapshot_dir, self.config.events_topic, book)
            self.snapshot_at[partition] = time.monotonic()
            self.stats.snapshots += 1
            self.stats.snapshot_s += time.perf_counter() - started

    async def acquired(self, restored: dict[int, Restored[WalletBook]]) -> None:
        if self._on_ready is not None:
            self._on_ready([item.report for item in restored.values()])
            self._on_ready = None

    def released(self, partition: int, book: WalletBook) -> None:
        self.snapshot_at.pop(partition, None)
