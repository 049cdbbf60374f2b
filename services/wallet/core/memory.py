"""The de-duplication memory: which entries still count, which are expired, and what an event leaves behind."""

from __future__ import annotations

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events.base import EventData
from shared.events.wallet import CommandRejected

from services.wallet.core.state import Remembered, WalletState

# Rejections that do not own the transaction id: the id stays free for the command that does (see docs/wallet.md).
UNREMEMBERED_CODES = frozenset({"REQUEST_EXPIRED", "DUPLICATE_CONFLICT", "OPERATOR_MISMATCH"})
# A repeat dated inside the window can arrive up to DEDUP_WINDOW_MS + CLOCK_SKEW_MS after the original was recorded.
RETENTION_MS = DEDUP_WINDOW_MS + CLOCK_SKEW_MS


def is_expired(entry: Remembered, now_ms: int) -> bool:
    return now_ms - entry.recorded_ms > RETENTION_MS


def remembers(data: EventData) -> bool:
    """Whether this event is kept under its transaction id (and so changes the player's state)."""
    if isinstance(data, CommandRejected):
        return data.code not in UNREMEMBERED_CODES and data.command_fingerprint is not None
    return True


def lookup(state: WalletState, transaction_id: str, now_ms: int) -> Remembered | None:
    """The live entry of a transaction id. An entry newer than the player state (seq ahead, left by a crash between
    two store writes) or older than the window does not count: the command is then decided afresh, deterministically."""
    entry = state.memory.get(transaction_id)
    if entry is None or entry.seq > state.player.seq or is_expired(entry, now_ms):
        return None
    return entry
