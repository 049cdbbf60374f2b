"""Read a whole topic as it is now (read_committed, every partition to its end) and fold jackpot.events into states, for
`reelstream jackpot pools` and the tests; the live service restores per partition (restore.py)."""

from __future__ import annotations

import time
from typing import Any

from kafka import TopicPartition

from shared.records import trusted_events
from shared.topics import JACKPOT_EVENTS
from shared.kafka import consumer
from shared.pools import PoolsConfig, load_pools

from services.jackpot.core.decide import new_network
from services.jackpot.core.evolve import replay
from services.jackpot.core.state import NetworkState

READ_TIMEOUT_S = 60


def read_all(
    bootstrap: str, topic: str, timeout_s: float = READ_TIMEOUT_S, role: str | None = None, committed: bool = True
) -> list[Any]:
    """Every committed record of `topic`, partition by partition in offset order (`committed=False`: every record
    written, those of open and aborted transactions included: what the tests show a crash left behind)."""
    isolation = {} if committed else {"isolation_level": "read_uncommitted"}
    reader = consumer(bootstrap, group_id=None, consumer_timeout_ms=1000, role=role, **isolation)
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic) or ())]
        reader.assign(partitions)
        reader.seek_to_beginning(*partitions)
        ends = reader.end_offsets(partitions)
        records: dict[int, list[Any]] = {tp.partition: [] for tp in partitions}
        deadline = time.monotonic() + timeout_s
        while any(reader.position(tp) < ends[tp] for tp in partitions):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic} not read to its end within {timeout_s} s")
            for tp, batch in reader.poll(timeout_ms=200, max_records=5000).items():
                records[tp.partition].extend(batch)
        return [record for partition in sorted(records) for record in records[partition]]
    finally:
        reader.close(autocommit=False)


def fold_events(records: list[Any], pools: PoolsConfig | None = None) -> dict[str, NetworkState]:
    """Each network's state from its events (duplicates by event id are skipped, as every consumer does; what the
    jackpot did not write or what does not decode is skipped, as its restore quarantines it)."""
    pools = pools or load_pools()
    states: dict[str, NetworkState] = {}
    for record in records:
        events, _ = trusted_events(JACKPOT_EVENTS, record)
        for event in events:
            network_id = event.data.network_id
            state = states.get(network_id) or states.setdefault(network_id, new_network(pools.network(network_id)))
            replay(state, event)
    return states
