"""decide(state, batch, now, network=...) -> Decision: a batch of one network's commands, in partition order, becomes
that network's events.

Each emitted event is folded into the state at once (`evolve`), so a claim sees every contribution ordered before
it, and the second of two claims sees the level after the first one's reseed. Runs of consecutive contributions
become one ContributionsApplied each (at most MAX_CONTRIBUTIONS_PER_EVENT, so a record stays far below 1 MB).
"""

from __future__ import annotations

import uuid
from typing import Any

from games.registry import stakes_minor
from datetime import datetime

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Decision, Refusal
from shared.events import Envelope, broker_time, derived_id, envelope, epoch_ms
from shared.events import jackpot as jp
from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig, PoolsConfig

from services.jackpot.core import admin, claims
from services.jackpot.core.inputs import SOURCE, DeadLetter, Incoming, Outcome, is_expired
from services.jackpot.core.payout import split_contribution
from services.jackpot.core.evolve import evolve
from services.jackpot.core.state import NetworkState, contribution_fingerprint, forget_before

MAX_CONTRIBUTIONS_PER_EVENT = 1000


def unknown_network(pools: PoolsConfig, incoming: Incoming) -> DeadLetter | None:
    """A command for a network this deployment does not run: a dead letter, never a new network."""
    network_id = incoming.command.data.network_id
    if any(network.network_id == network_id for network in pools.networks):
        return None
    return DeadLetter(incoming.position, "UNKNOWN_NETWORK", f"no network {network_id!r}")


def new_network(network: NetworkConfig) -> NetworkState:
    return NetworkState(network.network_id, network.currency)


def decide(state: NetworkState, batch: list[Incoming], now: datetime, *, network: NetworkConfig) -> Decision:
    """The events of a batch, in order, each folded into `state` (in place, by `evolve`: shared/decision.py) as it is
    decided. `now` is the broker time the batch starts at (the de-duplication window ends there); each command's
    own broker time dates its event."""
    invariant(state.network_id == network.network_id, "state and configuration of different networks")
    outcome = _decide(state, network, batch, epoch_ms(now))
    return Decision(
        events=tuple(outcome.events),
        dead_letters=tuple(Refusal(d.code, d.reason, subject=d.position) for d in outcome.dead_letters),
        repeats=outcome.repeats,
    )


def _decide(state: NetworkState, network: NetworkConfig, batch: list[Incoming], now_ms: int) -> Outcome:
    outcome = Outcome()
    if not batch:
        return outcome
    forget_before(state, now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
    run: list[tuple[Incoming, list[int]]] = []
    pending: dict[uuid.UUID, tuple[Any, ...]] = {}
    for incoming in batch:
        data = incoming.command.data
        if len(state.pools) < len(network.pools) and not isinstance(data, jp.OpenPool):
            _open_missing_pools(state, network, incoming.broker_ms, outcome)
        if isinstance(data, jp.Contribute):
            parts = _accept_contribution(state, network, incoming, pending, outcome)
            if parts is not None:
                run.append((incoming, parts))
                if len(run) == MAX_CONTRIBUTIONS_PER_EVENT:
                    _flush(state, network, run, outcome)
                    run, pending = [], {}
            continue
        _flush(state, network, run, outcome)
        run, pending = [], {}
        if isinstance(data, jp.Claim):
            _emit_all(state, claims.answer(state, network, incoming, outcome), outcome)
        else:
            _emit_all(state, admin.answer(state, network, incoming, outcome), outcome)
    _flush(state, network, run, outcome)
    return outcome


def _emit_all(state: NetworkState, events: list[Envelope[Any]], outcome: Outcome) -> None:
    for event in events:
        evolve(state, event)
        outcome.events.append(event)


def _accept_contribution(
    state: NetworkState, network: NetworkConfig, incoming: Incoming, pending: dict, outcome: Outcome
) -> list[int] | None:
    """Each pool's part of a fresh, valid contribution; None (with a dead letter or a counted repeat) otherwise."""
    data: jp.Contribute = incoming.command.data
    fingerprint = contribution_fingerprint(
        data.game, data.player_id, data.operator_id, data.stake_minor, data.breakage_micro
    )
    earlier = state.seen.get(data.contribution_id)
    earlier_fingerprint = earlier.fingerprint if earlier is not None else pending.get(data.contribution_id)
    if earlier_fingerprint is not None:
        if earlier_fingerprint != fingerprint:
            outcome.dead_letters.append(
                DeadLetter(incoming.position, "DUPLICATE_CONFLICT", "contribution id reused with other content")
            )
        else:
            outcome.repeats += 1
        return None
    problem = _contribution_problem(network, incoming)
    if problem is not None:
        outcome.dead_letters.append(DeadLetter(incoming.position, *problem))
        return None
    pending[data.contribution_id] = fingerprint
    return split_contribution(network.pools, data.stake_minor, data.breakage_micro)


def _contribution_problem(network: NetworkConfig, incoming: Incoming) -> tuple[str, str] | None:
    data: jp.Contribute = incoming.command.data
    if data.game not in network.games:
        return "WRONG_GAME", f"game {data.game!r} is not in network {network.network_id!r}"
    if data.currency != network.currency:
        return "CURRENCY_MISMATCH", f"{data.currency} contribution to a {network.currency} network"
    if data.stake_minor not in stakes_minor(data.game):
        return "INVALID_STAKE", f"{data.stake_minor} is not a stake of {data.game}"
    if not 0 <= data.breakage_micro < MICRO_PER_MINOR:
        return "INVALID_BREAKAGE", f"breakage_micro {data.breakage_micro} is not a sub-cent remainder (0 .. 999,999)"
    expected_micro = network.wager_contribution_micro(data.stake_minor)
    if data.contribution_micro != expected_micro:
        return (
            "CONTRIBUTION_MISMATCH",
            f"contribution_micro {data.contribution_micro} != {expected_micro} by the pool rates",
        )
    if is_expired(incoming):
        return "EXPIRED", "older than the de-duplication window (or dated in the future)"
    return None


def _receiver(state: NetworkState, pool_id: str) -> str:
    """Where a pool's share goes: the pool itself, or, once decommissioned, the pool its balance moved to."""
    for _ in range(len(state.pools) + 1):
        pool = state.pools[pool_id]
        if pool.status != "decommissioned":
            return pool_id
        pool_id = pool.transfer_to_pool_id
    raise AssertionError("decommission transfers form a cycle")


def _flush(
    state: NetworkState, network: NetworkConfig, run: list[tuple[Incoming, list[int]]], outcome: Outcome
) -> None:
    if not run:
        return
    added = {pool.pool_id: 0 for pool in network.pools}
    applied = []
    for incoming, parts in run:
        data: jp.Contribute = incoming.command.data
        for pool, part_micro in zip(network.pools, parts):
            added[_receiver(state, pool.pool_id)] += part_micro
        applied.append(
            jp.AppliedContribution(
                contribution_id=data.contribution_id,
                game=data.game,
                player_id=data.player_id,
                operator_id=data.operator_id,
                stake_minor=data.stake_minor,
                amount_micro=sum(parts),
                breakage_micro=data.breakage_micro,
            )
        )
    movements = tuple(
        jp.PoolMovement(
            pool_id=pool_id,
            opening_micro=state.level_micro(pool_id),
            contributions_micro=amount,
            closing_micro=state.level_micro(pool_id) + amount,
        )
        for pool_id, amount in added.items()
        if amount > 0
    )
    first, last = run[0][0].command.data.contribution_id, run[-1][0].command.data.contribution_id
    now = broker_time(run[-1][0].broker_ms)
    data = jp.ContributionsApplied(
        network_id=network.network_id,
        recorded_at=now,
        currency=network.currency,
        contributions=tuple(applied),
        movements=movements,
    )
    event = envelope(
        data, source=SOURCE, time=now, id=derived_id(network.network_id, "contributions-applied", first, last, len(run))
    )
    _emit_all(state, [event], outcome)


def _open_missing_pools(state: NetworkState, network: NetworkConfig, broker_ms: int, outcome: Outcome) -> None:
    """A network's pools open at their seed on first use: the seed is operator-funded, recorded as seeds."""
    events = [
        admin.opened_event(network, pool, broker_time(broker_ms), None)
        for pool in network.pools
        if pool.pool_id not in state.pools
    ]
    _emit_all(state, events, outcome)
