"""One wallet partition as its loop runs it, without Kafka: each record read as the loop reads it
(tests/support/reads.py), decided, completed (a repeat's first record read back from the partition's log) and
committed onto that log, its wallet.events; and a partition restored from that log as a restart restores it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace

from shared.events import encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.events.wallet import Deposit
from shared.input_position import Output
from shared.repeats import Record

from services.wallet.adapters.restore import fold_record
from services.wallet.adapters.written import Partition, Written
from services.wallet.core.book import WalletBook
from tests.support.reads import handle
from tests.support.wallet import PLAYER, T0, tx

T0_MS = epoch_ms(T0)


def record(data, at_ms: int = T0_MS) -> bytes:
    """A command's record as a client writes it at `at_ms` (its envelope id derives from that time)."""
    return encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.UUID(int=at_ms)))


def deposit(n: int, amount_minor: int) -> Deposit:
    return Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR")


@dataclass
class LogReader:
    """shared/repeats.Reader over a list of committed records (offset = index); counts the records it read back."""

    log: list[Output]
    read: int = 0

    async def records(self, partition: int, offsets) -> dict[int, Record]:
        self.read += len(offsets)
        return {offset: (self.log[offset].key, self.log[offset].value) for offset in offsets}


@dataclass
class WalletPartition:
    """A partition's book, its adapter's places of facts, and its wallet.events log (shared by a restored copy)."""

    book: WalletBook = field(default_factory=lambda: WalletBook(0))
    written: Written = field(default_factory=Written)
    log: list[Output] = field(default_factory=list)
    reader: LogReader | None = None

    def __post_init__(self) -> None:
        self.reader = self.reader or LogReader(self.log)

    def run(
        self, value: bytes, at_ms: int = T0_MS, offset: int = 0, key: bytes | None = PLAYER.encode(), **read
    ) -> list[Output]:
        """One record of wallet.commands at `offset` as one batch: decided, completed and committed."""
        return self.batch([(value, at_ms, offset, key, read)])

    def batch(self, records: list[tuple]) -> list[Output]:
        """Records (value, at_ms, offset, key, read options) decided as one batch, completed, then committed."""
        self.written.begin()
        outputs = []
        for value, at_ms, offset, key, read in records:
            position = (read.pop("topic", "wallet.commands"), read.pop("partition", 0), offset)
            outputs += handle(self.book, key, value, at_ms, position, written=self.written, **read)
        done = asyncio.run(self.written.completed(0, outputs, self.reader))
        events = [out for out in done if not out.dead_letter and out.topic is None]
        self.written.committed(list(range(len(self.log), len(self.log) + len(events))))
        self.log.extend(events)
        return done

    def restored(self) -> WalletPartition:
        """A fresh partition folded from this one's log, as a restart restores it (the log is shared from then on)."""
        held = Partition(WalletBook(self.book.partition))
        for offset, out in enumerate(self.log):
            assert (
                fold_record(held, SimpleNamespace(key=out.key, value=out.value, headers=out.headers, offset=offset))
                is None
            )
        return WalletPartition(held.book, held.written, self.log)
