"""A packed record's contributions applied at once (docs/jackpot.md, "Packed contributions"): each run that no
must-drop pool can arm within, found by adding each pool's parts up to its drop point, becomes one ContributionsApplied;
the contribution that may arm a pool is decided alone, so every drop falls on the spin the one-at-a-time fold names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from shared.events import Envelope, broker_time, derived_id, envelope
from shared.events import jackpot as jp
from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig

from services.jackpot.core.inputs import SOURCE, Incoming
from services.jackpot.core.mustdrop import seal_context
from services.jackpot.core.payout import split_contribution
from services.jackpot.core.state import NetworkState

Routed = dict[str, int]  # receiving pool id -> micro-units of one contribution


class Parts:
    """Each contribution's pool parts and where they go, computed once per stake and breakage of a record (the
    receivers of decommissioned pools cannot change inside one record: only an admin command changes them)."""

    def __init__(self, network: NetworkConfig, receiver: Callable[[str], str]) -> None:
        self._network = network
        self._receivers = [receiver(pool.pool_id) for pool in network.pools]
        self._known: dict[tuple[int, int], tuple[list[int], Routed]] = {}
        self._totals: dict[int, int] = {}

    def expected_micro(self, stake_minor: int) -> int:
        """The network's total contribution at this stake (what a Contribute must state)."""
        found = self._totals.get(stake_minor)
        if found is None:
            found = self._totals[stake_minor] = self._network.wager_contribution_micro(stake_minor)
        return found

    def of(self, stake_minor: int, breakage_micro: int) -> tuple[list[int], Routed]:
        """(each pool's part, in the network's pool order; each receiver's sum of them)."""
        found = self._known.get((stake_minor, breakage_micro))
        if found is None:
            parts = split_contribution(self._network.pools, stake_minor, breakage_micro)
            routed: Routed = {}
            for receiver, part_micro in zip(self._receivers, parts):
                routed[receiver] = routed.get(receiver, 0) + part_micro
            found = self._known[(stake_minor, breakage_micro)] = (parts, routed)
        return found


def clear_run(
    state: NetworkState, network: NetworkConfig, routed: Sequence[Routed], start: int, broker_ms: int, secrets: Any
) -> int:
    """How many contributions from `start` on arm no must-drop pool and overflow none: each by-amount pool's level
    stays below its drop point (never above its ceiling), each by-time pool's below its ceiling before its instant.
    0 when the one at `start` may (or a drop pool is disabled: all its share overflows), so it is decided alone."""
    limit = len(routed) - start
    for pool in network.drop_pools():
        current = state.pools[pool.pool_id]
        if current.status == "decommissioned" or current.drop is None:
            continue
        if current.status != "open":
            return 0
        value = _drop_value(network, current, secrets)
        if current.drop.kind == "must-drop-by-amount":
            bound_micro = value * MICRO_PER_MINOR  # never above the ceiling: a drop point is drawn up to it
        elif broker_ms >= value:
            return 0
        else:
            bound_micro = current.drop.ceiling_micro + 1
        limit = _below(current.level_micro, bound_micro, routed, pool.pool_id, start, limit)
        if limit == 0:
            return 0
    return limit


def _drop_value(network: NetworkConfig, current: Any, secrets: Any) -> int:
    """The cycle's drop point (minor units, or epoch ms by time), opened with the key into the state's cache, as
    core/mustdrop.py's arming check does (that file is pinned by the outcome manifest: games/manifest.py)."""
    cycle = current.drop
    if cycle.value is None:
        invariant(secrets is not None, "a must-drop network needs the drop key")
        cycle.value, _ = secrets.open(cycle.sealed, seal_context(network.network_id, current.pool_id, cycle.cycle))
    return cycle.value


def _below(level_micro: int, bound_micro: int, routed: Sequence[Routed], pool_id: str, start: int, limit: int) -> int:
    """How many of the next `limit` contributions keep the pool's level (their running sum) below `bound_micro`."""
    if level_micro >= bound_micro:
        return 0
    for taken in range(limit):
        level_micro += routed[start + taken].get(pool_id, 0)
        if level_micro >= bound_micro:
            return taken
    return limit


def applied_item(data: jp.Contribute, amount_micro: int) -> jp.AppliedContribution:
    """One contribution as a ContributionsApplied lists it."""
    return jp.AppliedContribution(
        contribution_id=data.contribution_id,
        game=data.game,
        player_id=data.player_id,
        operator_id=data.operator_id,
        stake_minor=data.stake_minor,
        amount_micro=amount_micro,
        breakage_micro=data.breakage_micro,
    )


def applied_run(
    state: NetworkState, network: NetworkConfig, run: Sequence[Incoming], routed: Sequence[Routed]
) -> Envelope[Any]:
    """The run's ContributionsApplied: its items in order and each pool's summed movement (no overflow: a clear run
    stays below every ceiling), dated by the record's broker time."""
    items = []
    sums: Routed = {}
    for incoming, parts in zip(run, routed):
        data: jp.Contribute = incoming.command.data
        for pool_id, part_micro in parts.items():
            sums[pool_id] = sums.get(pool_id, 0) + part_micro
        items.append(applied_item(data, sum(parts.values())))
    movements = []
    for pool in network.pools:
        contributed_micro = sums.get(pool.pool_id, 0)
        if not contributed_micro:
            continue
        opening_micro = state.level_micro(pool.pool_id)
        movements.append(
            jp.PoolMovement(
                pool_id=pool.pool_id,
                opening_micro=opening_micro,
                contributions_micro=contributed_micro,
                closing_micro=opening_micro + contributed_micro,
            )
        )
    now = broker_time(run[0].broker_ms)
    applied = jp.ContributionsApplied(
        network_id=network.network_id,
        recorded_at=now,
        currency=network.currency,
        contributions=tuple(items),
        movements=tuple(movements),
    )
    first, last = run[0].command.data.contribution_id, run[-1].command.data.contribution_id
    event_id = derived_id(network.network_id, "contributions-applied", first, last, len(run))
    return envelope(applied, source=SOURCE, time=now, id=event_id)
