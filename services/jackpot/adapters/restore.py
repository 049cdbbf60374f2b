"""Restore the networks of one partition by folding jackpot.events from its beginning (read_committed).

The events are the state's source of truth, and they carry the input position too: each transaction's last event
records the next jackpot.commands offset (shared/input_position.py), so the fold and the position always agree.
A record the jackpot service did not write, or one that does not decode, is quarantined: logged as an alert,
never folded, never fatal (the projector dead-letters it once).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from shared import records
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.input_position import recorded_position
from shared.partition_log import PartitionReadTimeout, fold_partition
from shared.pools import PoolsConfig
from shared.topics import JACKPOT_EVENTS

from services.jackpot.core.decide import new_network
from services.jackpot.core.evolve import replay
from services.jackpot.core.state import NetworkState, forget_before
from services.jackpot.exceptions import RestoreError

log = logging.getLogger("reelstream.jackpot.restore")
RESTORE_TIMEOUT_S = 300
_FORGET_EVERY = 10_000


@dataclass
class Restored:
    """One partition's networks, and the input position its events recorded."""

    states: dict[str, NetworkState] = field(default_factory=dict)
    # The next jackpot.commands offset of the partition as the last committed transaction recorded it; None when no
    # event carries one (nothing committed yet, a log written before positions were recorded, or dead letters only).
    commands_offset: int | None = None
    quarantined: list[int] = field(default_factory=list)  # offsets skipped as untrusted or unreadable


async def restore_partition(bootstrap: str, events_topic: str, partition: int, config: PoolsConfig) -> Restored:
    restored = Restored()
    states = restored.states
    folded = [0]

    def fold(record) -> None:
        event = _trusted_event(record, events_topic, partition, restored)
        if event is None:
            return
        folded[0] += _fold(states, event, config)
        position = recorded_position(record.headers)
        if position is not None:
            restored.commands_offset = position
        if folded[0] % _FORGET_EVERY == 0:
            _forget_old(states)

    try:
        await fold_partition(bootstrap, events_topic, partition, fold, timeout_s=RESTORE_TIMEOUT_S, role="jackpot")
    except PartitionReadTimeout as error:
        raise RestoreError(str(error)) from error
    _forget_old(states)
    return restored


def _trusted_event(record, events_topic: str, partition: int, restored: Restored) -> Any | None:
    event, problem = records.trusted_event(JACKPOT_EVENTS, record)
    if event is not None:
        return event
    log.error("alert: %s[%d]@%d quarantined, not folded: %s", events_topic, partition, record.offset, problem)
    restored.quarantined.append(record.offset)
    return None


def _fold(states: dict[str, NetworkState], event: Any, config: PoolsConfig) -> int:
    network_id = event.data.network_id
    state = states.get(network_id)
    if state is None:
        state = states[network_id] = new_network(config.network(network_id))
    return 1 if replay(state, event) else 0


def _forget_old(states: dict[str, NetworkState]) -> None:
    for state in states.values():
        forget_before(state, state.last_recorded_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
