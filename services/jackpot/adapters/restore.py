"""Restore the networks of one partition: the newest valid snapshot on jackpot.snapshots, then the fold of the
jackpot.events tail after it, whose events carry the input position (docs/jackpot.md)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from shared import records, snapshots
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.partition_log import PartitionReadTimeout
from shared.pools import PoolsConfig
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_SNAPSHOTS

from services.jackpot.adapters import snapshot
from services.jackpot.core.decide import new_network
from services.jackpot.core.evolve import replay
from services.jackpot.core.state import NetworkState, forget_before
from services.jackpot.exceptions import RestoreError

log = logging.getLogger("reelstream.jackpot.restore")
RESTORE_TIMEOUT_S = 300
_FORGET_EVERY = 10_000


@dataclass
class RestoreReport:
    """One partition's networks, and the input position its events recorded."""

    states: dict[str, NetworkState] = field(default_factory=dict)
    # The next jackpot.commands offset of the partition as the last committed transaction recorded it; None when no
    # event carries one (nothing committed yet, a log written before positions were recorded, or dead letters only).
    commands_offset: int | None = None
    quarantined: list[int] = field(default_factory=list)  # offsets skipped as untrusted or unreadable
    cursor: snapshots.Cursor | None = None  # where the partition's snapshots stand (None: no snapshots topic)
    snapshot_offset: int | None = None  # the events offset the snapshot it started from reflects (None: from 0)
    folded: int = 0  # events folded after the snapshot (or from the beginning)
    inputs: dict[str, int] = field(default_factory=dict)  # every input's position, as the events recorded it


def fold_record(states: dict[str, NetworkState], record, config: PoolsConfig) -> str | None:
    """Fold one jackpot.events record (an event, or a batch envelope's events in order) into the partition's networks;
    why it was quarantined instead, or None."""
    events, problem = records.trusted_events(JACKPOT_EVENTS, record)
    if problem is not None:
        return problem
    for event in events:
        _fold(states, event, config)
    return None


async def restore_partition(
    bootstrap: str, events_topic: str, partition: int, config: PoolsConfig, snapshots_topic: str | None = None
) -> RestoreReport:
    """The newest valid snapshot on jackpot.snapshots (if any) and the fold of the jackpot.events tail after it."""
    folded = [0]

    def fold(states: dict[str, NetworkState], record) -> str | None:
        problem = fold_record(states, record, config)
        folded[0] += problem is None
        if folded[0] % _FORGET_EVERY == 0:
            _forget_old(states)
        return problem

    try:
        restoration = await snapshots.restore(
            bootstrap,
            role="jackpot",
            partition=partition,
            events_topic=events_topic,
            snapshots_topic=snapshots_topic,
            snapshots_logical=JACKPOT_SNAPSHOTS,
            load=snapshot.load,
            empty=dict,
            fold=fold,
            timeout_s=RESTORE_TIMEOUT_S,
        )
    except PartitionReadTimeout as error:
        raise RestoreError(str(error)) from error
    _forget_old(restoration.state)
    return RestoreReport(
        restoration.state,
        restoration.commands_next(JACKPOT_COMMANDS),
        list(restoration.quarantined),
        restoration.cursor,
        restoration.snapshot.output_next if restoration.snapshot else None,
        restoration.folded,
        dict(restoration.inputs),
    )


def _fold(states: dict[str, NetworkState], event: Any, config: PoolsConfig) -> int:
    network_id = event.data.network_id
    state = states.get(network_id)
    if state is None:
        state = states[network_id] = new_network(config.network(network_id))
    return 1 if replay(state, event) else 0


def _forget_old(states: dict[str, NetworkState]) -> None:
    for state in states.values():
        forget_before(state, state.last_recorded_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
