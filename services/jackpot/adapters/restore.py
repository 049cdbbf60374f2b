"""How one partition's networks restore (shared/restoring.py): the newest valid snapshot on jackpot.snapshots, then the
fold of the jackpot.events tail after it, whose events carry the input position (docs/jackpot.md)."""

from __future__ import annotations

from functools import partial

from shared import records
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.pools import PoolsConfig
from shared.restoring import RestoreSpec, Restoring
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_SNAPSHOTS
from shared.warm import WarmStates

from services.jackpot.adapters import snapshot
from services.jackpot.core.decide import new_network
from services.jackpot.core.evolve import replay
from services.jackpot.core.state import NetworkState, forget_before


def fold_record(states: dict[str, NetworkState], record, config: PoolsConfig) -> str | None:
    """Fold one jackpot.events record (an event, or a batch envelope's events in order) into the partition's networks;
    why it was quarantined instead, or None."""
    events, problem = records.trusted_events(JACKPOT_EVENTS, record)
    if problem is not None:
        return problem
    for event in events:
        network_id = event.data.network_id
        if network_id not in states:
            states[network_id] = new_network(config.network(network_id))
        replay(states[network_id], event)
    return None


def spec(config: PoolsConfig) -> RestoreSpec:
    """The jackpot's restore of its networks under these pools, each network's memory kept to the live one's window."""
    fold = partial(fold_record, config=config)
    return RestoreSpec(
        "jackpot", JACKPOT_SNAPSHOTS, JACKPOT_COMMANDS, snapshot.load, lambda p: {}, fold, prune=_forget_old
    )


def warm_states(bootstrap: str, events_topic: str, snapshots_topic: str | None, config: PoolsConfig) -> WarmStates:
    """A jackpot spare's networks (shared/warm.py): every partition restored as a restart would, then kept up."""
    restoring = Restoring(spec(config), bootstrap, events_topic, snapshots_topic)
    return WarmStates(bootstrap, "jackpot", events_topic, restoring.fold, partial(fold_record, config=config))


def _forget_old(states: dict[str, NetworkState]) -> None:
    for state in states.values():
        forget_before(state, state.last_recorded_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
