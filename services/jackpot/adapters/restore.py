"""Restore the networks of one partition by folding jackpot.events from its beginning (read_committed).

The events are the state's source of truth; offsets of jackpot.commands are committed in the same transaction as
the events they produced, so the fold and the committed position always agree.
"""
from __future__ import annotations

import time
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import decode
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY
from shared.pools import PoolsConfig

from services.jackpot.core.decide import new_network
from services.jackpot.core.state import NetworkState, forget_before, replay
from services.jackpot.exceptions import RestoreError

RESTORE_TIMEOUT_S = 300
_FORGET_EVERY = 10_000


async def restore_partition(bootstrap: str, events_topic: str, partition: int, config: PoolsConfig) -> dict[str, NetworkState]:
    reader = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None, **{**AIOKAFKA_CONSUMER_SAFETY, "enable_auto_commit": False})
    await reader.start()
    try:
        tp = TopicPartition(events_topic, partition)
        reader.assign([tp])
        await reader.seek_to_beginning(tp)
        end = (await reader.end_offsets([tp]))[tp]
        states: dict[str, NetworkState] = {}
        folded = 0
        deadline = time.monotonic() + RESTORE_TIMEOUT_S
        while await reader.position(tp) < end:
            if time.monotonic() > deadline:
                raise RestoreError(f"{events_topic}[{partition}] not restored to offset {end} in {RESTORE_TIMEOUT_S} s")
            for records in (await reader.getmany(tp, timeout_ms=200, max_records=5000)).values():
                for record in records:
                    folded += _fold(states, decode(record.value, expect_kind="event"), config)
                    if folded % _FORGET_EVERY == 0:
                        _forget_old(states)
        _forget_old(states)
        return states
    finally:
        await reader.stop()


def _fold(states: dict[str, NetworkState], event: Any, config: PoolsConfig) -> int:
    network_id = event.data.network_id
    state = states.get(network_id)
    if state is None:
        state = states[network_id] = new_network(config.network(network_id))
    return 1 if replay(state, event) else 0


def _forget_old(states: dict[str, NetworkState]) -> None:
    for state in states.values():
        forget_before(state, state.last_recorded_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
