"""Rebuild one partition's wallet state on assignment: the newest valid snapshot on wallet.snapshots, then the fold of
the wallet.events tail after it (docs/wallet.md)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from shared import records, snapshots
from shared.events.envelope import epoch_ms
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_SNAPSHOTS
from shared.warm import WarmStates

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import CORE
from services.wallet.adapters.written import Partition, Written
from services.wallet.core.book import WalletBook


@dataclass(frozen=True)
class RestoreReport:
    state: WalletBook
    snapshot_offset: int | None  # where the snapshot left off (None: folded from the beginning)
    folded: int  # events folded from wallet.events
    millis: float
    quarantined: tuple[int, ...] = ()  # offsets of wallet.events skipped as untrusted or unreadable
    cursor: snapshots.Cursor | None = None
    warm: bool = False  # from a warm spare's book (the snapshot is the one that book started from)
    inputs: dict[str, int] = field(default_factory=dict)  # every input's position, as the events recorded it
    written: Written = field(default_factory=Written)  # where the book's recent facts are on wallet.events
    commands_offset: int | None = None  # the next wallet.commands offset the book has decided (None: none recorded)
    events_end: int = 0  # the next wallet.events offset after what the book reflects


def fold_record(partition: Partition, record) -> str | None:
    """Fold one wallet.events record into the partition's book, keeping where the fact is; why it was quarantined
    instead, or None."""
    event, problem = records.trusted_event(WALLET_EVENTS, record)
    if event is None:
        return problem
    CORE.evolve(partition.book, event)
    partition.written.repeats.kept(str(event.id), record.offset, epoch_ms(event.data.recorded_at))
    return None


def _snapshots_restore(bootstrap: str, events_topic: str, partition: int, snapshots_topic: str | None):
    return snapshots.restore(
        bootstrap,
        role="wallet",
        partition=partition,
        events_topic=events_topic,
        snapshots_topic=snapshots_topic,
        snapshots_logical=WALLET_SNAPSHOTS,
        load=snapshot.load,
        empty=lambda: Partition(WalletBook(partition)),
        fold=fold_record,
    )


def warm_states(bootstrap: str, events_topic: str, snapshots_topic: str | None) -> WarmStates:
    """A wallet spare's books (shared/warm.py): every partition restored as a restart would, then kept up."""
    return WarmStates(
        bootstrap,
        "wallet",
        events_topic,
        lambda partition: _snapshots_restore(bootstrap, events_topic, partition, snapshots_topic),
        fold_record,
    )


async def restore_partition(
    bootstrap: str,
    events_topic: str,
    partition: int,
    snapshots_topic: str | None,
    warm: snapshots.Restoration | None = None,
) -> RestoreReport:
    """The partition's book: from its newest snapshot plus tail, or from a warm spare's book (`warm`) plus the records
    after its last step (the caller has fenced the previous owner)."""
    started = time.perf_counter()
    if warm is None:
        restored = await _snapshots_restore(bootstrap, events_topic, partition, snapshots_topic)
    else:
        restored = await snapshots.resume(
            bootstrap, role="wallet", partition=partition, events_topic=events_topic, warm=warm, fold=fold_record
        )
    held: Partition = restored.state
    snapshot_offset = restored.snapshot.output_next if restored.snapshot else None
    millis = (time.perf_counter() - started) * 1000
    return RestoreReport(
        held.book,
        snapshot_offset,
        restored.folded,
        millis,
        restored.quarantined,
        restored.cursor,
        warm is not None,
        dict(restored.inputs),
        held.written,
        restored.commands_next(WALLET_COMMANDS),
        restored.events_end,
    )
