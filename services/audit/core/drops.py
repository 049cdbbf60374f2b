"""Must-drop pools, re-checked from jackpot.events alone: every reveal matches the commitment published for its
cycle before the cycle's first wager, each cycle is committed once and drops once, and the drop fits its point
(the winning level reached the drop point by amount; the win came at or after the instant by time)."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy
from shared.events import epoch_ms
from shared.events.jackpot import DropPointCommitted, DropRevealed, JackpotWon
from shared.money import MICRO_PER_MINOR
from shared.pools import PoolsConfig
from shared.pools.commitment import reveal_matches


@dataclass
class Drops:
    """Each must-drop cycle's first commitment and its reveal, by (pool, cycle)."""

    committed: dict[tuple[str, int], Fact] = field(default_factory=dict)
    revealed: dict[tuple[str, int], Fact] = field(default_factory=dict)


def check_drops(
    facts: list[Fact], config: PoolsConfig, drops: Drops | None = None, wins: dict[str, Fact] | None = None
) -> list[Discrepancy]:
    """Every drop finding, in read order (per network partition order). `drops`: the cycles read before these facts
    (an audit resumed from a checkpoint); `wins`: each claim's first JackpotWon (the pools' fold), else those in
    `facts`."""
    found: list[Discrepancy] = []
    drops = drops if drops is not None else Drops()
    committed, revealed = drops.committed, drops.revealed
    if wins is None:
        wins = {str(f.data.claim_id): f for f in reversed(facts) if isinstance(f.data, JackpotWon)}
    for fact in facts:
        data = fact.data
        if isinstance(data, DropPointCommitted):
            key = (data.pool_id, data.cycle)
            earlier = committed.get(key)
            if earlier is not None and earlier.data.commitment != data.commitment:
                found.append(_found("drop-commitment-changed", fact, f"cycle {data.cycle} first at {earlier.where}"))
            committed.setdefault(key, fact)
        elif isinstance(data, DropRevealed):
            key = (data.pool_id, data.cycle)
            if key in revealed:
                found.append(_found("drop-revealed-twice", fact, f"cycle {data.cycle} first at {revealed[key].where}"))
                continue
            revealed[key] = fact
            found.extend(_reveal_problems(fact, committed.get(key), wins.get(str(data.claim_id)), config))
    return found


def _reveal_problems(fact: Fact, commitment: Fact | None, win: Fact | None, config: PoolsConfig) -> list[Discrepancy]:
    data: DropRevealed = fact.data
    if commitment is None:
        return [_found("drop-reveal-uncommitted", fact, f"no commitment of cycle {data.cycle} before the reveal")]
    problems = []
    published = commitment.data
    if data.commitment != published.commitment:
        problems.append(f"reveals commitment {data.commitment[:16]}…, the cycle published {published.commitment[:16]}…")
    if not reveal_matches(published.commitment, data.drop_value, data.salt):
        problems.append("SHA-256(drop value ‖ salt) is not the published commitment")
    if win is None:
        problems.append(f"no JackpotWon {data.claim_id} for the drop")
    elif data.kind == "must-drop-by-amount":
        problems.extend(_amount_problems(data, published, win.data, config))
    elif not epoch_ms(published.window_start) <= data.drop_value < epoch_ms(published.window_end):
        problems.append("the drop instant lies outside its window")
    elif epoch_ms(win.data.recorded_at) < data.drop_value:
        problems.append("won before the drop instant")
    return [_found("drop-reveal-mismatch", fact, problem) for problem in problems]


def _amount_problems(data: DropRevealed, published: DropPointCommitted, win: JackpotWon, config: PoolsConfig) -> list:
    pool = config.network(data.network_id).pool(data.pool_id)
    problems = []
    if not pool.seed_minor < data.drop_value <= published.ceiling_micro // MICRO_PER_MINOR:
        problems.append(f"drop point {data.drop_value} outside (seed, ceiling]")
    if win.level_before_micro < data.drop_value * MICRO_PER_MINOR:
        problems.append(f"won at level {win.level_before_micro} micro, below the drop point {data.drop_value} minor")
    return problems


def _found(check: str, fact: Fact, detail: str) -> Discrepancy:
    data = fact.data
    return Discrepancy(
        check,
        f"pool {data.pool_id}",
        f"{fact.envelope.type}: {detail}",
        event_id=fact.id,
        where=fact.where,
        at_ms=fact.timestamp_ms,
        network_id=data.network_id,
    )
