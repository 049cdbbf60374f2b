"""The jackpot pools, recomputed from their movements: the identity per event, the chain per pool, each claim paid
once."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy, fact_finding
from shared.events.jackpot import AppliedContribution, ContributionsApplied, JackpotWon, PoolMovement, PoolReseeded
from shared.money import MICRO_PER_MINOR, PPM
from shared.pools import PoolsConfig


@dataclass
class PoolState:
    pool_id: str
    network_id: str
    currency: str
    level_micro: int = 0
    initial_micro: int = 0  # the opening of the first movement read (0, or the configured seed)
    contributions_micro: int = 0
    seeds_micro: int = 0
    paid_micro: int = 0
    # Must-drop pools: reserve taken in for a reseed / overflow sent on (and a decommissioning's transfer).
    transferred_in_micro: int = 0
    transferred_out_micro: int = 0
    movements: int = 0
    history: list[tuple[int, int]] = field(default_factory=list)  # (broker time ms, closing micro)


@dataclass
class Pools:
    pools: dict[str, PoolState] = field(default_factory=dict)
    applied: dict[str, tuple[AppliedContribution, Fact]] = field(default_factory=dict)  # contribution id -> applied
    wins: dict[str, Fact] = field(default_factory=dict)  # claim id -> JackpotWon
    discrepancies: list[Discrepancy] = field(default_factory=list)

    def network_net_micro(self, network_id: str) -> int:
        """What players' wagers put into a network's pools minus what the pools paid (seeds excluded)."""
        return sum(p.contributions_micro - p.paid_micro for p in self.pools.values() if p.network_id == network_id)


def fold_pools(facts: list[Fact], config: PoolsConfig, pools: Pools | None = None) -> Pools:
    """Apply every jackpot fact in read order (per-network partition order) and check each one; `pools`: the state to
    continue from (an audit resumed from a checkpoint)."""
    pools = pools or Pools()
    for fact in facts:
        data = fact.data
        if isinstance(data, ContributionsApplied):
            _contributions(pools, fact, config)
        elif isinstance(data, JackpotWon):
            _won(pools, fact, config)
        elif isinstance(data, PoolReseeded) or hasattr(data, "seed_micro") and hasattr(data, "movement"):
            # PoolReseeded and PoolOpened: operator-funded seeds.
            if data.movement.seeds_micro != data.seed_micro or data.movement.pool_id != data.pool_id:
                pools.discrepancies.append(
                    _found("pool-identity-broken", fact, data.pool_id, "seed differs from its movement")
                )
            _move(pools, fact, data.movement, config)
        elif hasattr(data, "network_id"):
            # Any other pool fact (e.g. a decommissioning's transfer) still moves levels: fold its movements too.
            for movement in (getattr(data, "movement", None),) + tuple(getattr(data, "movements", ())):
                if movement is not None:
                    _move(pools, fact, movement, config)
    return pools


def _contributions(pools: Pools, fact: Fact, config: PoolsConfig) -> None:
    data: ContributionsApplied = fact.data
    for contribution in data.contributions:
        key = str(contribution.contribution_id)
        if key in pools.applied:
            pools.discrepancies.append(
                _found(
                    "contribution-applied-twice",
                    fact,
                    data.network_id,
                    f"contribution {key} first at {pools.applied[key][1].where}",
                )
            )
            continue
        pools.applied[key] = (contribution, fact)
    declared_micro = sum(c.amount_micro for c in data.contributions)
    moved_micro = sum(m.contributions_micro for m in data.movements)
    if declared_micro != moved_micro:
        pools.discrepancies.append(
            _found(
                "contributions-unbalanced",
                fact,
                data.network_id,
                f"contributions {declared_micro} micro, movements {moved_micro}",
            )
        )
    for movement in data.movements:
        _move(pools, fact, movement, config)


def _won(pools: Pools, fact: Fact, config: PoolsConfig) -> None:
    data: JackpotWon = fact.data
    claim_id = str(data.claim_id)
    if claim_id in pools.wins:
        pools.discrepancies.append(
            _found(
                "pool-paid-twice", fact, data.pool_id, f"claim {claim_id} first paid at {pools.wins[claim_id].where}"
            )
        )
        return
    pools.wins[claim_id] = fact
    for problem in _won_problems(data, config):
        pools.discrepancies.append(_found("jackpot-won-mismatch", fact, data.pool_id, problem))
    _move(pools, fact, data.movement, config)


def _won_problems(data: JackpotWon, config: PoolsConfig) -> list[str]:
    movement = data.movement
    problems = []
    if movement.pool_id != data.pool_id:
        problems.append(f"movement of pool {movement.pool_id}")
    if movement.paid_micro != data.amount_minor * MICRO_PER_MINOR:
        problems.append(f"paid {movement.paid_micro} micro but amount_minor {data.amount_minor}")
    if movement.opening_micro != data.level_before_micro or movement.closing_micro != data.level_after_micro:
        problems.append("level_before/level_after differ from the movement")
    try:
        pool = config.network(data.network_id).pool(data.pool_id)
    except KeyError:
        return problems  # reported as pool-unknown by _move
    if pool.tier != data.tier:
        problems.append(f"tier {data.tier} but pool {pool.pool_id} pays tier {pool.tier}")
    if pool.payout.policy == "full":
        share_ppm = PPM
    else:
        share_ppm = min(PPM, data.stake_minor * PPM // pool.payout.full_share_stake_minor)
    if data.share_ppm != share_ppm:
        problems.append(f"share {data.share_ppm} ppm, the pool's policy gives {share_ppm} ppm")
    if pool.payout.policy == "full":
        owed_minor = data.level_before_micro // MICRO_PER_MINOR
    else:
        full_minor = pool.payout.full_share_stake_minor
        owed_minor = data.level_before_micro * min(data.stake_minor, full_minor) // (full_minor * MICRO_PER_MINOR)
    if data.amount_minor != owed_minor:
        problems.append(
            f"amount {data.amount_minor} minor, the share of level {data.level_before_micro} micro is {owed_minor}"
        )
    return problems


def _move(pools: Pools, fact: Fact, movement: PoolMovement, config: PoolsConfig) -> None:
    network_id = fact.data.network_id
    try:
        pool_config = config.network(network_id).pool(movement.pool_id)
    except KeyError:
        pools.discrepancies.append(
            _found("pool-unknown", fact, movement.pool_id, f"not a pool of network {network_id}")
        )
        return
    if not movement.balanced():
        pools.discrepancies.append(
            _found(
                "pool-identity-broken",
                fact,
                movement.pool_id,
                f"{movement.opening_micro} + {movement.contributions_micro} + {movement.seeds_micro} + "
                f"{movement.transferred_in_micro} - {movement.paid_micro} - {movement.transferred_out_micro} != "
                f"{movement.closing_micro}",
            )
        )
    state = pools.pools.get(movement.pool_id)
    if state is None:
        state = pools.pools[movement.pool_id] = PoolState(
            movement.pool_id, network_id, config.network(network_id).currency
        )
        allowed = (0, pool_config.seed_minor * MICRO_PER_MINOR)
        if movement.opening_micro not in allowed:
            pools.discrepancies.append(
                _found(
                    "pool-chain-broken",
                    fact,
                    movement.pool_id,
                    f"first opening {movement.opening_micro}, expected one of {allowed}",
                )
            )
        state.initial_micro = state.level_micro = movement.opening_micro
    elif movement.opening_micro != state.level_micro:
        pools.discrepancies.append(
            _found(
                "pool-chain-broken",
                fact,
                movement.pool_id,
                f"opening {movement.opening_micro}, previous closing {state.level_micro}",
            )
        )
    state.contributions_micro += movement.contributions_micro
    state.seeds_micro += movement.seeds_micro
    state.paid_micro += movement.paid_micro
    state.transferred_in_micro += movement.transferred_in_micro
    state.transferred_out_micro += movement.transferred_out_micro
    state.level_micro = movement.closing_micro
    state.movements += 1
    state.history.append((fact.timestamp_ms, movement.closing_micro))


def _found(check: str, fact: Fact, subject: str, detail: str) -> Discrepancy:
    return fact_finding(check, f"pool {subject}" if not subject.startswith("pool") else subject, fact, detail)
