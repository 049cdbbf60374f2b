"""decide(state, batch, now, network=...) -> Decision: a batch of one network's commands, in partition order, becomes
that network's events, each folded at once so later claims see it (docs/jackpot.md)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
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

from services.jackpot.core import admin, claims, mustdrop
from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.inputs import SOURCE, Incoming, Outcome, is_expired
from services.jackpot.core.payout import split_contribution
from services.jackpot.core.evolve import evolve
from services.jackpot.core.state import NetworkState, contribution_fingerprint, forget_before

MAX_CONTRIBUTIONS_PER_EVENT = 1000


def unknown_network(pools: PoolsConfig, incoming: Incoming) -> Refusal | None:
    """A command for a network this deployment does not run: a dead letter, never a new network."""
    network_id = incoming.command.data.network_id
    if any(network.network_id == network_id for network in pools.networks):
        return None
    return Refusal("UNKNOWN_NETWORK", f"no network {network_id!r}", subject=incoming.position)


def new_network(network: NetworkConfig) -> NetworkState:
    return NetworkState(network.network_id, network.currency)


def decide(
    state: NetworkState,
    batch: list[Incoming],
    now: datetime,
    *,
    network: NetworkConfig,
    secrets: DropSecrets | None = None,
) -> Decision:
    """The events of a batch, in order, each folded into `state` (in place, by `evolve`: shared/decision.py) as it is
    decided. `now` is the broker time the batch starts at (the de-duplication window ends there); each command's
    own broker time dates its event. `secrets` (the drop key and the OS CSPRNG) is needed only by networks with
    must-drop pools (core/mustdrop.py)."""
    invariant(state.network_id == network.network_id, "state and configuration of different networks")
    outcome = _decide(state, network, batch, epoch_ms(now), secrets)
    return Decision(
        events=tuple(outcome.events),
        dead_letters=tuple(outcome.dead_letters),
        repeats=outcome.repeats,
    )


def _decide(
    state: NetworkState, network: NetworkConfig, batch: list[Incoming], now_ms: int, secrets: DropSecrets | None
) -> Outcome:
    outcome = Outcome()
    if not batch:
        return outcome
    forget_before(state, now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
    run = _Run()
    for incoming in batch:
        data = incoming.command.data
        if len(state.pools) < len(network.pools) and not isinstance(data, jp.OpenPool):
            _open_missing_pools(state, network, incoming.broker_ms, outcome)
            _emit_all(state, mustdrop.commit_missing(state, network, incoming.broker_ms, secrets), outcome)
        if isinstance(data, jp.Contribute):
            parts = _accept_contribution(state, network, incoming, run.pending, outcome)
            if parts is not None:
                _add_contribution(state, network, run, incoming, parts, secrets, outcome)
                if len(run.items) == MAX_CONTRIBUTIONS_PER_EVENT:
                    run = _flush(state, network, run, outcome)
            continue
        run = _flush(state, network, run, outcome)
        if isinstance(data, jp.Claim):
            _emit_all(state, claims.answer(state, network, incoming, outcome), outcome)
        else:
            _emit_all(state, admin.answer(state, network, incoming, outcome), outcome)
            _emit_all(state, mustdrop.commit_missing(state, network, incoming.broker_ms, secrets), outcome)
    _flush(state, network, run, outcome)
    return outcome


@dataclass
class _Run:
    """Consecutive fresh contributions waiting to become one ContributionsApplied, each with its routed parts, and
    what they add up to per pool: contributions, and overflow moved out of a must-drop pool into its overflow pool."""

    items: list[tuple[Incoming, dict[str, int]]] = field(default_factory=list)
    pending: dict[uuid.UUID, tuple[Any, ...]] = field(default_factory=dict)
    contributions: dict[str, int] = field(default_factory=dict)
    moved_in: dict[str, int] = field(default_factory=dict)
    moved_out: dict[str, int] = field(default_factory=dict)

    def net_micro(self, pool_id: str) -> int:
        return self.contributions.get(pool_id, 0) + self.moved_in.get(pool_id, 0) - self.moved_out.get(pool_id, 0)


def _add_contribution(
    state: NetworkState,
    network: NetworkConfig,
    run: _Run,
    incoming: Incoming,
    parts: list[int],
    secrets: DropSecrets | None,
    outcome: Outcome,
) -> None:
    """Route the parts (decommissioned pools' shares, must-drop ceilings and overflow), then drop what it wins."""
    routed: dict[str, int] = {}
    for pool, part_micro in zip(network.pools, parts):
        receiver = _receiver(state, pool.pool_id)
        routed[receiver] = routed.get(receiver, 0) + part_micro
    won, overflows = [], []
    if network.drop_pools():
        won, overflows = mustdrop.route(
            state, network, incoming, routed, run.net_micro, lambda p: _receiver(state, p), secrets
        )
    run.items.append((incoming, routed))
    for pool_id, amount_micro in routed.items():
        run.contributions[pool_id] = run.contributions.get(pool_id, 0) + amount_micro
    for source, target, amount_micro in overflows:
        run.moved_out[source] = run.moved_out.get(source, 0) + amount_micro
        run.moved_in[target] = run.moved_in.get(target, 0) + amount_micro
    if not won:
        return
    fresh = _flush(state, network, run, outcome)
    run.items, run.pending = fresh.items, fresh.pending
    run.contributions, run.moved_in, run.moved_out = fresh.contributions, fresh.moved_in, fresh.moved_out
    for pool in won:
        mustdrop.drop(state, network, pool, incoming, secrets, lambda event: _emit_all(state, [event], outcome))


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
                Refusal("DUPLICATE_CONFLICT", "contribution id reused with other content", subject=incoming.position)
            )
        else:
            outcome.repeats += 1
        return None
    problem = _contribution_problem(network, incoming)
    if problem is not None:
        outcome.dead_letters.append(Refusal(*problem, subject=incoming.position))
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


def _flush(state: NetworkState, network: NetworkConfig, run: _Run, outcome: Outcome) -> _Run:
    """Emit the run as one ContributionsApplied (when it holds any) and return a fresh run."""
    if not run.items:
        return _Run()
    applied = []
    for incoming, routed in run.items:
        data: jp.Contribute = incoming.command.data
        applied.append(
            jp.AppliedContribution(
                contribution_id=data.contribution_id,
                game=data.game,
                player_id=data.player_id,
                operator_id=data.operator_id,
                stake_minor=data.stake_minor,
                amount_micro=sum(routed.values()),
                breakage_micro=data.breakage_micro,
            )
        )
    movements = tuple(
        jp.PoolMovement(
            pool_id=pool.pool_id,
            opening_micro=state.level_micro(pool.pool_id),
            contributions_micro=run.contributions.get(pool.pool_id, 0),
            transferred_in_micro=run.moved_in.get(pool.pool_id, 0),
            transferred_out_micro=run.moved_out.get(pool.pool_id, 0),
            closing_micro=state.level_micro(pool.pool_id) + run.net_micro(pool.pool_id),
        )
        for pool in network.pools
        if run.contributions.get(pool.pool_id, 0) or run.moved_in.get(pool.pool_id, 0)
    )
    first, last = run.items[0][0].command.data.contribution_id, run.items[-1][0].command.data.contribution_id
    now = broker_time(run.items[-1][0].broker_ms)
    data = jp.ContributionsApplied(
        network_id=network.network_id,
        recorded_at=now,
        currency=network.currency,
        contributions=tuple(applied),
        movements=movements,
    )
    event_id = derived_id(network.network_id, "contributions-applied", first, last, len(run.items))
    event = envelope(data, source=SOURCE, time=now, id=event_id)
    _emit_all(state, [event], outcome)
    return _Run()


def _open_missing_pools(state: NetworkState, network: NetworkConfig, broker_ms: int, outcome: Outcome) -> None:
    """A network's pools open at their seed on first use: the seed is operator-funded, recorded as seeds."""
    events = [
        admin.opened_event(network, pool, broker_time(broker_ms), None)
        for pool in network.pools
        if pool.pool_id not in state.pools
    ]
    _emit_all(state, events, outcome)
