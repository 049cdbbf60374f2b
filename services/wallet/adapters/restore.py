"""Rebuild one partition's wallet state on assignment: load the local snapshot, then fold the wallet.events tail.

wallet.events is the changelog (one record per command): every event the loop produced was applied to the live
state with the same `PartitionState.apply`, so the fold gives the live state back exactly. Without a snapshot the
fold starts at the beginning of the partition.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from shared.events import DecodeError, decode
from shared.input_position import recorded_position
from shared.partition_log import fold_partition

from services.wallet.adapters import snapshot
from services.wallet.adapters.partition import PartitionState
from services.wallet.exceptions import StoreCorrupted

log = logging.getLogger("reelstream.wallet.restore")


@dataclass(frozen=True)
class Restored:
    state: PartitionState
    snapshot_offset: int | None  # where the snapshot left off (None: folded from the beginning)
    folded: int  # events folded from wallet.events
    millis: float


async def restore_partition(bootstrap: str, events_topic: str, partition: int, snapshot_dir: Path | None) -> Restored:
    started = time.perf_counter()
    state = snapshot.load(snapshot_dir, events_topic, partition) if snapshot_dir is not None else None
    from_snapshot = state is not None
    state = state or PartitionState(partition)
    folded = [0]

    def fold(record) -> None:
        try:
            event = decode(record.value, expect_kind="event")
        except DecodeError as error:  # only the wallet writes here: an unreadable fact is a bug, never skipped
            raise StoreCorrupted(f"{events_topic}[{partition}]@{record.offset} unreadable: {error}") from error
        state.apply(event, record.value)
        position = recorded_position(record.headers)
        if position is not None:
            state.commands_offset = position
        folded[0] += 1

    end = await fold_partition(bootstrap, events_topic, partition, fold, start=state.events_offset, role="wallet")
    if end < state.events_offset:  # the snapshot is ahead of the topic (recreated?): start from scratch
        log.warning("snapshot of %s[%d] at %d is ahead of the end %d; folding from the beginning",
                    events_topic, partition, state.events_offset, end)
        return await restore_partition(bootstrap, events_topic, partition, None)
    snapshot_offset = state.events_offset if from_snapshot else None
    state.events_offset = end
    return Restored(state, snapshot_offset, folded[0], (time.perf_counter() - started) * 1000)
