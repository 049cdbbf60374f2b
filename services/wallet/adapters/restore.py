"""Rebuild one partition's wallet state on assignment: load the local snapshot, then fold the wallet.events tail.

wallet.events is the changelog (one record per command): every event the loop produced was applied to the live
state with the same `core.evolve`, so the fold gives the live state back exactly. Without a snapshot the
fold starts at the beginning of the partition. A record the wallet did not write, or one that does not decode, is
quarantined: logged as an alert and counted, never folded and never fatal (the projector dead-letters it once).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from shared import records
from shared.events import DecodeError, decode
from shared.input_position import recorded_position
from shared.partition_log import fold_partition

from services.wallet.adapters import snapshot
from services.wallet.core import evolve
from services.wallet.core.book import WalletBook
from shared.topics import WALLET_EVENTS

log = logging.getLogger("reelstream.wallet.restore")


@dataclass(frozen=True)
class Restored:
    state: WalletBook
    snapshot_offset: int | None  # where the snapshot left off (None: folded from the beginning)
    folded: int  # events folded from wallet.events
    millis: float
    quarantined: tuple[int, ...] = ()  # offsets of wallet.events skipped as untrusted or unreadable


async def restore_partition(bootstrap: str, events_topic: str, partition: int, snapshot_dir: Path | None) -> Restored:
    started = time.perf_counter()
    state = snapshot.load(snapshot_dir, events_topic, partition) if snapshot_dir is not None else None
    from_snapshot = state is not None
    state = state or WalletBook(partition)
    folded = [0]
    quarantined: list[int] = []

    def fold(record) -> None:
        problem = records.provenance_problem(WALLET_EVENTS, record.headers, record.value, record.key)
        event = None
        if problem is None:
            try:
                event = decode(record.value, expect_kind="event")
            except DecodeError as error:
                problem = f"unreadable: {error}"
        if event is None:
            log.error("alert: %s[%d]@%d quarantined, not folded: %s", events_topic, partition, record.offset, problem)
            quarantined.append(record.offset)
            return
        evolve(state, event, record.value)
        position = recorded_position(record.headers)
        if position is not None:
            state.commands_offset = position
        folded[0] += 1

    end = await fold_partition(bootstrap, events_topic, partition, fold, start=state.events_offset, role="wallet")
    if end < state.events_offset:  # the snapshot is ahead of the topic (recreated?): start from scratch
        log.warning(
            "snapshot of %s[%d] at %d is ahead of the end %d; folding from the beginning",
            events_topic,
            partition,
            state.events_offset,
            end,
        )
        return await restore_partition(bootstrap, events_topic, partition, None)
    snapshot_offset = state.events_offset if from_snapshot else None
    state.events_offset = end
    return Restored(state, snapshot_offset, folded[0], (time.perf_counter() - started) * 1000, tuple(quarantined))
