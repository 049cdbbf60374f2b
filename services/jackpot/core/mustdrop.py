"""Must-drop pools: a committed drop point per cycle, contributions capped at the ceiling (the rest to the overflow
pool), exactly one winner per drop on the network partition's order, the reveal, the reseed and the next commitment.

The winner is the first qualifying contribution (stake ≥ the pool's minimum) applied while the pool is open and
armed: its level has reached the drop point (by amount) or the broker time has reached the drop instant (by time).
Two wagers never both win one drop: the one ordered first on the partition wins, the next feeds the new cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from shared.events import Envelope, broker_time, derived_id, envelope, epoch_ms
from shared.events import jackpot as jp
from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR, PPM
from shared.pools import NetworkConfig, PoolConfig, drop_claim_id

from services.jackpot.core import claims
from services.jackpot.core.commitment import DropSecrets, commitment_of
from services.jackpot.core.inputs import SOURCE, Incoming
from services.jackpot.core.payout import payout_minor
from services.jackpot.core.state import NetworkState, PoolState

Emit = Callable[[Envelope[Any]], None]


def seal_context(network_id: str, pool_id: str, cycle: int) -> str:
    """What a sealed drop point is bound to (AES-GCM associated data): it cannot be moved to another cycle."""
    return f"{network_id}/{pool_id}/{cycle}"


def commit_missing(state: NetworkState, network: NetworkConfig, now_ms: int, secrets: DropSecrets | None) -> list:
    """A DropPointCommitted for every must-drop pool that is open (or disabled) and has no cycle yet."""
    events = []
    for pool in network.drop_pools():
        current = state.pools.get(pool.pool_id)
        if current is None or current.drop is not None or current.status == "decommissioned":
            continue
        invariant(secrets is not None, "a must-drop network needs the drop key and randomness")
        events.append(_committed(network, pool, current, now_ms, secrets))
    return events


def _committed(
    network: NetworkConfig, pool: PoolConfig, current: PoolState, now_ms: int, secrets: DropSecrets
) -> Envelope[Any]:
    rules = pool.must_drop
    window_start = window_end = None
    if pool.kind == "must-drop-by-amount":
        low_minor = current.level_micro // MICRO_PER_MINOR + 1
        invariant(low_minor <= rules.ceiling_minor, "a cycle starts below the ceiling")
        value, salt = secrets.draw(low_minor, rules.ceiling_minor + 1)
    else:
        window_start = broker_time(now_ms)
        window_end = window_start + timedelta(seconds=rules.window_s)
        value, salt = secrets.draw(now_ms, epoch_ms(window_end))
    cycle = current.drops
    data = jp.DropPointCommitted(
        network_id=network.network_id,
        recorded_at=broker_time(now_ms),
        pool_id=pool.pool_id,
        kind=pool.kind,
        cycle=cycle,
        commitment=commitment_of(value, salt),
        sealed=secrets.seal(value, salt, seal_context(network.network_id, pool.pool_id, cycle)),
        ceiling_micro=rules.ceiling_minor * MICRO_PER_MINOR,
        window_start=window_start,
        window_end=window_end,
    )
    event_id = derived_id(network.network_id, pool.pool_id, "drop-point-committed", cycle)
    return envelope(data, source=SOURCE, time=data.recorded_at, id=event_id)


def route(
    state: NetworkState,
    network: NetworkConfig,
    incoming: Incoming,
    routed: dict[str, int],
    pending_micro: Callable[[str], int],
    receiver: Callable[[str], str],
    secrets: DropSecrets | None,
) -> tuple[list[PoolConfig], list[tuple[str, str, int]]]:
    """The pools this contribution wins, and the overflow it causes: (must-drop pool, overflow pool, micro) for the
    part of its share above the ceiling, or all of it while the pool is disabled. The share itself stays the pool's
    contribution and the overflow a transfer out of it, so per pool opening + contributions + reserve in + seeds -
    paid - overflow out = closing. `routed` is pool id -> contribution; `pending_micro` what the run adds already."""
    data: jp.Contribute = incoming.command.data
    won, overflows = [], []
    for pool in network.drop_pools():
        current = state.pools[pool.pool_id]
        if current.status == "decommissioned" or current.drop is None:
            continue
        part_micro = routed.get(pool.pool_id, 0)
        level_micro = current.level_micro + pending_micro(pool.pool_id)
        room_micro = max(0, current.drop.ceiling_micro - level_micro) if current.status == "open" else 0
        kept_micro = min(part_micro, room_micro)
        if kept_micro < part_micro:
            overflows.append((pool.pool_id, receiver(pool.must_drop.overflow_pool_id), part_micro - kept_micro))
        qualifies = data.stake_minor >= pool.must_drop.min_stake_minor
        armed = current.status == "open" and _armed(network, current, level_micro + kept_micro, incoming, secrets)
        if qualifies and armed:
            won.append(pool)
    return won, overflows


def _armed(
    network: NetworkConfig, current: PoolState, level_micro: int, incoming: Incoming, secrets: DropSecrets | None
) -> bool:
    cycle = current.drop
    if cycle.value is None:
        invariant(secrets is not None, "a must-drop network needs the drop key")
        cycle.value, _ = secrets.open(cycle.sealed, seal_context(network.network_id, current.pool_id, cycle.cycle))
    if cycle.kind == "must-drop-by-amount":
        return level_micro >= cycle.value * MICRO_PER_MINOR
    return incoming.broker_ms >= cycle.value


def drop(
    state: NetworkState,
    network: NetworkConfig,
    pool: PoolConfig,
    incoming: Incoming,
    secrets: DropSecrets,
    emit: Emit,
) -> None:
    """The winning contribution's events, each emitted (and folded) in order: JackpotWon (the whole level, rounded
    down), DropRevealed, the reseed (from the reserve first when so configured) and the next cycle's commitment."""
    data: jp.Contribute = incoming.command.data
    current = state.pools[pool.pool_id]
    cycle = current.drop
    value, salt = secrets.open(cycle.sealed, seal_context(network.network_id, pool.pool_id, cycle.cycle))
    claim_id = drop_claim_id(data.contribution_id, pool.pool_id)
    now = broker_time(incoming.broker_ms)
    level_before_micro = current.level_micro
    amount_minor = payout_minor(pool.payout, level_before_micro, data.stake_minor)  # "full": the level, rounded down
    won = claims.won_data(
        network, pool, claim_id, data.contribution_id, data, level_before_micro, amount_minor, PPM, now
    )
    emit(_wrap(won, incoming, claim_id, "jackpot-won"))
    revealed = jp.DropRevealed(
        network_id=network.network_id,
        recorded_at=now,
        pool_id=pool.pool_id,
        kind=pool.kind,
        cycle=cycle.cycle,
        commitment=cycle.commitment,
        drop_value=value,
        salt=salt.hex(),
        claim_id=claim_id,
        contribution_id=data.contribution_id,
        level_micro=level_before_micro,
    )
    emit(_wrap(revealed, incoming, claim_id, "drop-revealed"))
    _reseed(state, network, pool, incoming, claim_id, emit)
    emit(_committed(network, pool, state.pools[pool.pool_id], incoming.broker_ms, secrets))


def _reseed(
    state: NetworkState, network: NetworkConfig, pool: PoolConfig, incoming: Incoming, claim_id: Any, emit: Emit
) -> None:
    now = broker_time(incoming.broker_ms)
    level_micro = state.pools[pool.pool_id].level_micro
    need_micro = pool.seed_minor * MICRO_PER_MINOR - level_micro
    reserve = network.reserve_pool()
    if need_micro > 0 and pool.reseed.funded_by == "reserve" and reserve is not None:
        reserve_micro = state.pools[reserve.pool_id].level_micro
        taken_micro = min(need_micro, reserve_micro)
        if taken_micro > 0:
            funded = jp.PoolFundedFromReserve(
                network_id=network.network_id,
                recorded_at=now,
                pool_id=pool.pool_id,
                reserve_pool_id=reserve.pool_id,
                amount_micro=taken_micro,
                cause_claim_id=claim_id,
                movements=(
                    jp.PoolMovement(
                        pool_id=reserve.pool_id,
                        opening_micro=reserve_micro,
                        transferred_out_micro=taken_micro,
                        closing_micro=reserve_micro - taken_micro,
                    ),
                    jp.PoolMovement(
                        pool_id=pool.pool_id,
                        opening_micro=level_micro,
                        transferred_in_micro=taken_micro,
                        closing_micro=level_micro + taken_micro,
                    ),
                ),
            )
            emit(_wrap(funded, incoming, claim_id, "pool-funded-from-reserve"))
            level_micro += taken_micro
            need_micro -= taken_micro
    if need_micro <= 0:
        return
    reseeded = claims.top_up_data(network, pool, level_micro, need_micro, claim_id, now)
    emit(_wrap(reseeded, incoming, claim_id, "pool-reseeded"))


def _wrap(data: Any, incoming: Incoming, claim_id: Any, what: str) -> Envelope[Any]:
    command = incoming.command
    return envelope(
        data,
        source=SOURCE,
        time=broker_time(incoming.broker_ms),
        id=derived_id(claim_id, what),
        correlationid=str(command.data.contribution_id),
        causationid=str(command.id),
    )
