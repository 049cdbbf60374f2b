"""How one partition's wallet state restores (shared/restoring.py): the newest valid snapshot on wallet.snapshots, then
the fold of the wallet.events tail after it, each fact kept with where it is (docs/wallet.md)."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.events.envelope import epoch_ms
from shared.restoring import RestoreSpec, Restoring
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_SNAPSHOTS
from shared.warm import WarmStates

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import CORE
from services.wallet.adapters.written import Partition
from services.wallet.core.book import WalletBook


def fold_record(partition: Partition, record) -> str | None:
    """Fold one wallet.events record into the partition's book, keeping where the fact is; why it was quarantined
    instead, or None."""
    event, problem = records.trusted_event(WALLET_EVENTS, record)
    if event is None:
        return problem
    CORE.evolve(partition.book, event)
    partition.written.repeats.kept(str(event.id), record.offset, epoch_ms(event.data.recorded_at))
    return None


# The fold builds the book with where its facts are (a Partition); the loop holds the book.
SPEC = RestoreSpec(
    "wallet",
    WALLET_SNAPSHOTS,
    WALLET_COMMANDS,
    snapshot.load,
    lambda p: Partition(WalletBook(p)),
    fold_record,
    state=lambda held: held.book,
)


def restoring(bootstrap: str, events_topic: str, snapshots_topic: str | None, **timing: Any) -> Restoring:
    """The wallet's restores of wallet.events (`timing`: Restoring's snapshot timing and stats)."""
    return Restoring(SPEC, bootstrap, events_topic, snapshots_topic, **timing)


def warm_states(bootstrap: str, events_topic: str, snapshots_topic: str | None) -> WarmStates:
    """A wallet spare's books (shared/warm.py): every partition restored as a restart would, then kept up."""
    return WarmStates(
        bootstrap, "wallet", events_topic, restoring(bootstrap, events_topic, snapshots_topic).fold, fold_record
    )
