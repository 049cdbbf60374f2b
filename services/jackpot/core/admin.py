"""Administrative commands on a pool: open (at its seed), disable, resume, decommission (balance moves to a sibling). A
disabled pool keeps taking its share but pays no claim; a decommissioned one's balance and shares go on."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from shared.events import Envelope, broker_time, derived_id, envelope
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig, PoolConfig

from services.jackpot.core.inputs import SOURCE, Incoming, Outcome, answer_envelope, answered_before, is_expired
from services.jackpot.core.state import NetworkState, admin_fingerprint

_WANTED_STATUS = {jp.DisablePool: ("open", "disabled"), jp.ResumePool: ("disabled", "open")}


def answer(state: NetworkState, network: NetworkConfig, incoming: Incoming, outcome: Outcome) -> list[Envelope[Any]]:
    data = incoming.command.data
    if answered_before(state, incoming, data.command_id, admin_fingerprint(data.TYPE, data.pool_id), outcome):
        return []
    if is_expired(incoming):
        # Past the window its id may be forgotten: applying it could repeat an old decision (e.g. disable again).
        return [
            _rejected(network, incoming, "EXPIRED", "older than the de-duplication window (or dated in the future)")
        ]
    if all(pool.pool_id != data.pool_id for pool in network.pools):
        return [
            _rejected(
                network, incoming, "UNKNOWN_POOL", f"pool {data.pool_id!r} is not in network {network.network_id!r}"
            )
        ]
    if isinstance(data, jp.OpenPool):
        return _open(state, network, incoming)
    if isinstance(data, jp.DecommissionPool):
        return _decommission(state, network, incoming)
    current, wanted = _WANTED_STATUS[type(data)]
    status = state.pools[data.pool_id].status
    if status != current:
        return [_rejected(network, incoming, "WRONG_STATUS", f"pool {data.pool_id} is {status}, not {current}")]
    return [_status_changed(network, incoming, wanted, None, ())]


def _open(state: NetworkState, network: NetworkConfig, incoming: Incoming) -> list[Envelope[Any]]:
    data: jp.OpenPool = incoming.command.data
    if data.pool_id in state.pools:
        return [_rejected(network, incoming, "ALREADY_OPEN", f"pool {data.pool_id} is already open")]
    return [opened_event(network, network.pool(data.pool_id), broker_time(incoming.broker_ms), data.command_id)]


def _decommission(state: NetworkState, network: NetworkConfig, incoming: Incoming) -> list[Envelope[Any]]:
    data: jp.DecommissionPool = incoming.command.data
    source = state.pools[data.pool_id]
    target = state.pools.get(data.transfer_to_pool_id)
    if source.status == "decommissioned":
        return [_rejected(network, incoming, "WRONG_STATUS", f"pool {data.pool_id} is already decommissioned")]
    if target is None or target is source or target.status == "decommissioned":
        return [_rejected(network, incoming, "INVALID_TRANSFER", f"cannot transfer to {data.transfer_to_pool_id!r}")]
    amount_micro = source.level_micro
    movements = (
        jp.PoolMovement(
            pool_id=source.pool_id, opening_micro=amount_micro, transferred_out_micro=amount_micro, closing_micro=0
        ),
        jp.PoolMovement(
            pool_id=target.pool_id,
            opening_micro=target.level_micro,
            transferred_in_micro=amount_micro,
            closing_micro=target.level_micro + amount_micro,
        ),
    )
    return [_status_changed(network, incoming, "decommissioned", target.pool_id, movements)]


def _status_changed(
    network: NetworkConfig, incoming: Incoming, status: str, transfer_to: str | None, movements: tuple
) -> Envelope[Any]:
    data = incoming.command.data
    now = broker_time(incoming.broker_ms)
    changed = jp.PoolStatusChanged(
        network_id=network.network_id,
        recorded_at=now,
        pool_id=data.pool_id,
        command_id=data.command_id,
        status=status,
        reason=data.reason,
        transfer_to_pool_id=transfer_to,
        movements=movements,
    )
    return answer_envelope(changed, incoming, data.command_id, "pool-status-changed")


def _rejected(network: NetworkConfig, incoming: Incoming, code: str, message: str) -> Envelope[Any]:
    data = incoming.command.data
    now = broker_time(incoming.broker_ms)
    rejected = jp.PoolCommandRejected(
        network_id=network.network_id,
        recorded_at=now,
        command_id=data.command_id,
        pool_id=data.pool_id,
        command_type=data.TYPE,
        code=code,
        message=message,
    )
    return answer_envelope(rejected, incoming, data.command_id, "pool-command-rejected")


def opened_event(
    network: NetworkConfig, pool: PoolConfig, now: datetime, command_id: uuid.UUID | None
) -> Envelope[Any]:
    """A pool opens at its seed, operator-funded (recorded as seeds); the id is the same however it was opened."""
    seed_micro = pool.seed_minor * MICRO_PER_MINOR
    movement = jp.PoolMovement(pool_id=pool.pool_id, opening_micro=0, seeds_micro=seed_micro, closing_micro=seed_micro)
    data = jp.PoolOpened(
        network_id=network.network_id,
        recorded_at=now,
        pool_id=pool.pool_id,
        tier=pool.tier,
        currency=network.currency,
        seed_micro=seed_micro,
        command_id=command_id,
        movement=movement,
        kind=None if pool.kind == "random" else pool.kind,
    )
    return envelope(
        data,
        source=SOURCE,
        time=now,
        id=derived_id(network.network_id, pool.pool_id, "pool-opened"),
        causationid=str(command_id) if command_id else None,
    )
