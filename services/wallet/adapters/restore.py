"""Rebuild one partition's wallet state on assignment: the newest valid snapshot on wallet.snapshots, then the fold of
the wallet.events tail after it (docs/wallet.md)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from shared import records, snapshots
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_SNAPSHOTS
from shared.warm import WarmStates

from services.wallet.adapters import snapshot
from services.wallet.core import evolve
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


def fold_record(book: WalletBook, record) -> str | None:
    """Fold one wallet.events record into the book; why it was quarantined instead, or None."""
    event, problem = records.trusted_event(WALLET_EVENTS, record)
    if event is None:
        return problem
    evolve(book, event, record.value)
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
        empty=lambda: WalletBook(partition),
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
    book: WalletBook = restored.state
    book.events_offset = restored.events_end
    book.commands_offset = restored.commands_next(WALLET_COMMANDS)
    snapshot_offset = restored.snapshot.output_next if restored.snapshot else None
    millis = (time.perf_counter() - started) * 1000
    return RestoreReport(
        book,
        snapshot_offset,
        restored.folded,
        millis,
        restored.quarantined,
        restored.cursor,
        warm is not None,
        dict(restored.inputs),
    )
