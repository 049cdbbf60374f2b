"""Answering a claim: JackpotWon (and PoolReseeded when the win leaves the level below the seed) or ClaimRejected.

A disabled or decommissioned pool pays nothing: the claim gets ClaimRejected with POOL_DISABLED or
POOL_DECOMMISSIONED, and the spin service settles the spin with its fixed prize only. A claim is never refused by age:
its wager is debited and waits for it, however late the spin sent it (docs/jackpot.md, "Internal commands").
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from games.registry import stakes_minor
from shared.events import Envelope, broker_time
from shared.events import jackpot as jp
from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig, PoolConfig

from services.jackpot.core.inputs import Incoming, Outcome, answer_envelope, answered_before
from services.jackpot.core.payout import payout_minor, share_ppm
from services.jackpot.core.state import NetworkState, claim_fingerprint


def answer(state: NetworkState, network: NetworkConfig, incoming: Incoming, outcome: Outcome) -> list[Envelope[Any]]:
    """The events answering one claim; a repeat re-emits the original answer, a conflicting repeat is dead-lettered."""
    data: jp.Claim = incoming.command.data
    fingerprint = claim_fingerprint(data.request_id, data.player_id, data.tier, data.stake_minor)
    if answered_before(state, incoming, data.claim_id, fingerprint, outcome, what="claim id"):
        return []
    problem = _problem(state, network, incoming)
    if problem is not None:
        return [_rejected(network, incoming, *problem)]
    return _won(state, network, incoming)


def _problem(state: NetworkState, network: NetworkConfig, incoming: Incoming) -> tuple[str, str, str | None] | None:
    data: jp.Claim = incoming.command.data
    try:
        pool = network.pool_for_tier(data.tier)
    except KeyError:
        return "UNKNOWN_TIER", f"tier {data.tier!r} is not in network {network.network_id!r}", None
    pool_id = pool.pool_id
    not_claimable = _not_claimable(pool)
    if not_claimable is not None:
        return *not_claimable, pool_id
    if data.game not in network.games:
        return "WRONG_GAME", f"game {data.game!r} is not in network {network.network_id!r}", pool_id
    if data.currency != network.currency:
        return "CURRENCY_MISMATCH", f"{data.currency} claim on a {network.currency} network", pool_id
    status = state.pools[pool_id].status
    if status == "disabled":
        return "POOL_DISABLED", f"pool {pool_id} is disabled: the spin pays its fixed prize only", pool_id
    if status == "decommissioned":
        return "POOL_DECOMMISSIONED", f"pool {pool_id} is decommissioned", pool_id
    if data.stake_minor not in stakes_minor(data.game):
        return "INVALID_STAKE", f"{data.stake_minor} is not a stake of {data.game}", pool_id
    return None


def _not_claimable(pool: PoolConfig) -> tuple[str, str] | None:
    """A claim on a pool that is not won by claiming: a reserve is never paid; a must-drop pool pays only the wager
    that dropped it, whose answer was given at the drop (so a fresh claim on it did not drop it)."""
    if pool.hidden:
        return "UNKNOWN_TIER", f"tier {pool.tier!r} is a hidden reserve"
    if pool.dropping:
        return "NO_DROP", f"the wager did not drop {pool.pool_id}"
    return None


def _rejected(
    network: NetworkConfig, incoming: Incoming, code: str, message: str, pool_id: str | None
) -> Envelope[Any]:
    data: jp.Claim = incoming.command.data
    now = broker_time(incoming.broker_ms)
    rejected = jp.ClaimRejected(
        network_id=network.network_id,
        recorded_at=now,
        claim_id=data.claim_id,
        request_id=data.request_id,
        player_id=data.player_id,
        tier=data.tier,
        code=code,
        message=message,
        stake_minor=data.stake_minor,
        pool_id=pool_id,
    )
    return _wrap(rejected, incoming, "claim-rejected")


def _won(state: NetworkState, network: NetworkConfig, incoming: Incoming) -> list[Envelope[Any]]:
    data: jp.Claim = incoming.command.data
    pool = network.pool_for_tier(data.tier)
    now = broker_time(incoming.broker_ms)
    level_before_micro = state.level_micro(pool.pool_id)
    amount_minor = payout_minor(pool.payout, level_before_micro, data.stake_minor)
    share = share_ppm(pool.payout, data.stake_minor)
    won = won_data(network, pool, data.claim_id, data.request_id, data, level_before_micro, amount_minor, share, now)
    events = [_wrap(won, incoming, "jackpot-won")]
    seed_micro = pool.seed_minor * MICRO_PER_MINOR
    if won.level_after_micro < seed_micro:
        top_up_micro = seed_micro - won.level_after_micro
        reseeded = top_up_data(network, pool, won.level_after_micro, top_up_micro, data.claim_id, now)
        events.append(_wrap(reseeded, incoming, "pool-reseeded"))
    return events


def won_data(
    network: NetworkConfig,
    pool: PoolConfig,
    claim_id: uuid.UUID,
    request_id: uuid.UUID,
    wager: Any,
    level_before_micro: int,
    amount_minor: int,
    share: int,
    now: datetime,
) -> jp.JackpotWon:
    """A win of `amount_minor` from `pool` at `level_before_micro` by `wager` (its player, operator and stake): by a
    claim here, by the contribution that dropped a must-drop pool in core/mustdrop.py."""
    paid_micro = amount_minor * MICRO_PER_MINOR
    level_after_micro = level_before_micro - paid_micro
    invariant(level_after_micro >= 0, "a win never takes more than the level")
    return jp.JackpotWon(
        network_id=network.network_id,
        recorded_at=now,
        claim_id=claim_id,
        request_id=request_id,
        player_id=wager.player_id,
        operator_id=wager.operator_id,
        pool_id=pool.pool_id,
        tier=pool.tier,
        currency=network.currency,
        stake_minor=wager.stake_minor,
        share_ppm=share,
        amount_minor=amount_minor,
        level_before_micro=level_before_micro,
        level_after_micro=level_after_micro,
        movement=jp.PoolMovement(
            pool_id=pool.pool_id,
            opening_micro=level_before_micro,
            paid_micro=paid_micro,
            closing_micro=level_after_micro,
        ),
    )


def top_up_data(
    network: NetworkConfig, pool: PoolConfig, level_micro: int, top_up_micro: int, claim_id: uuid.UUID, now: datetime
) -> jp.PoolReseeded:
    """The operator's seed put back after a win (`top_up_micro` onto `level_micro`)."""
    return jp.PoolReseeded(
        network_id=network.network_id,
        recorded_at=now,
        pool_id=pool.pool_id,
        currency=network.currency,
        seed_micro=top_up_micro,
        cause_claim_id=claim_id,
        movement=jp.PoolMovement(
            pool_id=pool.pool_id,
            opening_micro=level_micro,
            seeds_micro=top_up_micro,
            closing_micro=level_micro + top_up_micro,
        ),
    )


def _wrap(data: Any, incoming: Incoming, what: str) -> Envelope[Any]:
    claim = incoming.command.data
    return answer_envelope(data, incoming, claim.claim_id, what, correlationid=str(claim.request_id))
