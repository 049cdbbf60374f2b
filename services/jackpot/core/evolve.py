"""evolve(state, event, raw) -> state: the one fold of a network's own events, live and on restore; it changes the state
in place, as every service core does (shared/decision.py)."""

from __future__ import annotations

import uuid
from typing import Any

from shared.events import Envelope, epoch_ms
from shared.events import jackpot as jp
from shared.invariant import invariant

from services.jackpot.core.commitment import reveal_matches
from services.jackpot.core.state import (
    NO_OPERATOR,
    DropCycle,
    LastWin,
    NetworkState,
    OperatorLiability,
    PoolState,
    Seen,
    admin_fingerprint,
    claim_fingerprint,
    contribution_fingerprint,
)


_STATUS_COMMAND = {
    "open": jp.ResumePool.TYPE,
    "disabled": jp.DisablePool.TYPE,
    "decommissioned": jp.DecommissionPool.TYPE,
}


def evolve(state: NetworkState, event: Envelope[Any], raw: bytes | None = None) -> NetworkState:
    """Apply one of the network's own events (the same function restores state from jackpot.events). `raw`, the
    event as written, is not needed here: the contract's shape (shared/decision.py)."""
    data = event.data
    invariant(data.network_id == state.network_id, "an event of another network")
    recorded_ms = epoch_ms(data.recorded_at)
    handler = _HANDLERS.get(type(data))
    invariant(handler is not None, f"no evolve rule for {data.TYPE}")
    handler(state, event, recorded_ms)
    state.last_recorded_ms = max(state.last_recorded_ms, recorded_ms)
    state.events_applied += 1
    return state


def _move(state: NetworkState, movement: jp.PoolMovement) -> None:
    invariant(movement.balanced(), f"unbalanced movement of {movement.pool_id}")
    invariant(movement.closing_micro >= 0, f"negative closing level of {movement.pool_id}")
    pool = state.pools[movement.pool_id]
    invariant(movement.opening_micro == pool.level_micro, f"movement of {movement.pool_id} does not open at its level")
    pool.level_micro = movement.closing_micro
    pool.contributions_micro += movement.contributions_micro
    pool.seeds_micro += movement.seeds_micro
    pool.paid_micro += movement.paid_micro
    pool.transferred_in_micro += movement.transferred_in_micro
    pool.transferred_out_micro += movement.transferred_out_micro


def _remember(
    state: NetworkState,
    command_id: uuid.UUID,
    fingerprint: tuple[Any, ...],
    event: Envelope[Any],
    recorded_ms: int,
    keep: bool,
) -> None:
    seen = state.seen.get(command_id)
    if seen is None:
        state.seen[command_id] = Seen(fingerprint, recorded_ms, (event.id,))
    elif event.id not in seen.event_ids:
        seen.event_ids = seen.event_ids + (event.id,)
    if keep:
        state.answers[event.id] = event


def _pool_opened(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.PoolOpened = event.data
    invariant(data.pool_id not in state.pools, f"pool {data.pool_id} opened twice")
    state.pools[data.pool_id] = PoolState(data.pool_id, data.tier, kind=data.kind or "random")
    _move(state, data.movement)
    if data.command_id is not None:
        _remember(
            state, data.command_id, admin_fingerprint(jp.OpenPool.TYPE, data.pool_id), event, recorded_ms, keep=True
        )


def _contributions_applied(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.ContributionsApplied = event.data
    for movement in data.movements:
        _move(state, movement)
    invariant(
        sum(m.contributions_micro for m in data.movements) == sum(c.amount_micro for c in data.contributions),
        "a batch's movements must add up to its contributions",
    )
    invariant(
        sum(m.transferred_in_micro for m in data.movements) == sum(m.transferred_out_micro for m in data.movements),
        "a batch's overflow moves between its pools, nothing more",
    )
    for item in data.contributions:
        fingerprint = contribution_fingerprint(
            item.game, item.player_id, item.operator_id, item.stake_minor, item.breakage_micro
        )
        invariant(item.contribution_id not in state.seen, "a contribution applied twice")
        state.seen[item.contribution_id] = Seen(fingerprint, recorded_ms, (event.id,))
        liability = state.liability_by_operator.setdefault(item.operator_id or NO_OPERATOR, OperatorLiability())
        liability.contributed_micro += item.amount_micro


def _jackpot_won(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.JackpotWon = event.data
    invariant(data.claim_id not in state.seen, "a claim paid twice")
    _move(state, data.movement)
    pool = state.pools[data.pool_id]
    pool.wins += 1
    pool.last_win = LastWin(data.claim_id, data.player_id, data.operator_id, data.amount_minor, recorded_ms)
    liability = state.liability_by_operator.setdefault(data.operator_id or NO_OPERATOR, OperatorLiability())
    liability.paid_micro += data.movement.paid_micro
    fingerprint = claim_fingerprint(data.request_id, data.player_id, data.tier, data.stake_minor)
    _remember(state, data.claim_id, fingerprint, event, recorded_ms, keep=True)


def _pool_reseeded(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.PoolReseeded = event.data
    _move(state, data.movement)
    if data.cause_claim_id is not None:
        invariant(data.cause_claim_id in state.seen, "a reseed follows the win that caused it")
        _remember(state, data.cause_claim_id, (), event, recorded_ms, keep=True)


def _claim_rejected(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.ClaimRejected = event.data
    fingerprint = claim_fingerprint(data.request_id, data.player_id, data.tier, data.stake_minor)
    _remember(state, data.claim_id, fingerprint, event, recorded_ms, keep=True)


def _pool_status_changed(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.PoolStatusChanged = event.data
    for movement in data.movements:
        _move(state, movement)
    pool = state.pools[data.pool_id]
    pool.status = data.status
    pool.transfer_to_pool_id = data.transfer_to_pool_id
    fingerprint = admin_fingerprint(_STATUS_COMMAND[data.status], data.pool_id)
    _remember(state, data.command_id, fingerprint, event, recorded_ms, keep=True)


def _pool_command_rejected(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.PoolCommandRejected = event.data
    _remember(state, data.command_id, admin_fingerprint(data.command_type, data.pool_id), event, recorded_ms, keep=True)


def _drop_point_committed(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.DropPointCommitted = event.data
    pool = state.pools[data.pool_id]
    invariant(pool.drop is None, f"a second open drop cycle of {data.pool_id}")
    invariant(data.cycle == pool.drops, f"drop cycle {data.cycle} of {data.pool_id} out of order")
    window_end_ms = epoch_ms(data.window_end) if data.window_end is not None else None
    pool.drop = DropCycle(data.cycle, data.kind, data.commitment, data.sealed, data.ceiling_micro, window_end_ms)


def _drop_revealed(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.DropRevealed = event.data
    pool = state.pools[data.pool_id]
    invariant(pool.drop is not None, f"a reveal of {data.pool_id} without a committed cycle")
    invariant(data.commitment == pool.drop.commitment, f"a reveal of {data.pool_id} for another commitment")
    invariant(reveal_matches(data.commitment, data.drop_value, data.salt), f"a reveal of {data.pool_id} that lies")
    pool.drop = None
    pool.drops += 1


def _pool_funded_from_reserve(state: NetworkState, event: Envelope[Any], recorded_ms: int) -> None:
    data: jp.PoolFundedFromReserve = event.data
    for movement in data.movements:
        _move(state, movement)
    _remember(state, data.cause_claim_id, (), event, recorded_ms, keep=True)


_HANDLERS = {
    jp.DropPointCommitted: _drop_point_committed,
    jp.DropRevealed: _drop_revealed,
    jp.PoolFundedFromReserve: _pool_funded_from_reserve,
    jp.PoolOpened: _pool_opened,
    jp.ContributionsApplied: _contributions_applied,
    jp.JackpotWon: _jackpot_won,
    jp.PoolReseeded: _pool_reseeded,
    jp.ClaimRejected: _claim_rejected,
    jp.PoolStatusChanged: _pool_status_changed,
    jp.PoolCommandRejected: _pool_command_rejected,
}


def replay(state: NetworkState, event: Envelope[Any]) -> bool:
    """Fold an event read back from jackpot.events; a re-emitted answer (same id, already applied) is skipped.

    A repeat is only ever re-emitted from `answers`, and replay forgets no later than decide did, so the original
    is still remembered when its copy comes by. Returns whether the event changed the state.
    """
    if event.id in state.answers:
        return False
    evolve(state, event)
    return True
