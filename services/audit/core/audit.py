"""One audit over raw records: collect, fold the wallet and the pools, re-derive the spins, cross-check them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from services.audit.core.collect import Facts, RawRecord, collect
from services.audit.core.drops import check_drops
from services.audit.core.findings import Discrepancy, sort_key
from services.audit.core.jackpots import JackpotCheck, check_jackpots
from services.audit.core.ledger import Ledger, fold_ledger, open_too_long
from services.audit.core.pools import Pools, fold_pools
from services.audit.core.rederive import EngineLookup, default_lookup
from services.audit.core.rtp import RtpSample, spin_return_micro
from services.audit.core.scope import Scope
from services.audit.core.spins import Spins, check_spins
from shared.config import SAGA_TIME_LIMIT_MS
from shared.pools import PoolsConfig, load_pools


@dataclass
class AuditResult:
    scope: Scope
    facts: Facts
    ledger: Ledger
    pools: Pools
    spins: Spins
    jackpots: JackpotCheck
    rtp: dict[str, RtpSample] = field(default_factory=dict)
    discrepancies: list[Discrepancy] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        types = Counter(fact.envelope.type for fact in self.facts.facts)
        return {
            "records": self.facts.records,
            "distinct_events": len(self.facts.facts),
            "quarantined": len(self.facts.quarantined),
            "redeliveries_collapsed": self.facts.redeliveries,
            "spins_rederived": self.spins.rederived,
            "wagers": len(self.ledger.wagers),
            "pool_movements": sum(p.movements for p in self.pools.pools.values()),
            **{f"type:{name}": count for name, count in sorted(types.items())},
        }


def run_audit(
    records: list[RawRecord],
    scope: Scope = Scope(),
    config: PoolsConfig | None = None,
    lookup: EngineLookup = default_lookup,
    decoded: Callable[[int], None] = lambda count: None,
    now_ms: int | None = None,
) -> AuditResult:
    """Everything the audit checks from the raw topics alone; `discrepancies` holds those inside the scope, sorted.
    `decoded` hears the decoding's progress (see collect). `now_ms` dates the audit, for debits open longer than the
    saga's time limit (None: the latest broker time read)."""
    config = config or load_pools()
    facts = collect(records, until_ms=scope.until_ms, decoded=decoded)
    wallet_facts = [fact for fact in facts.facts if fact.topic == "wallet.events"]
    jackpot_facts = [fact for fact in facts.facts if fact.topic == "jackpot.events"]
    spin_facts = [fact for fact in facts.facts if fact.topic in ("spin.events", "spin.journal")]
    ledger = fold_ledger(wallet_facts)
    pools = fold_pools(jackpot_facts, config)

    def in_scope(fact) -> bool:
        return scope.covers_spin(fact.timestamp_ms, fact.data.player_id, _network_of(config, fact.data.game))

    spins = check_spins(spin_facts, ledger, config, lookup, in_scope)
    jackpots = check_jackpots(ledger, pools, spins, config)
    latest_ms = max((fact.timestamp_ms for fact in facts.facts), default=0)
    stale = open_too_long(ledger, latest_ms if now_ms is None else now_ms, SAGA_TIME_LIMIT_MS)
    found = (
        facts.discrepancies
        + ledger.discrepancies
        + stale
        + pools.discrepancies
        + spins.discrepancies
        + jackpots.discrepancies
    ) + check_drops(jackpot_facts, config)
    result = AuditResult(scope, facts, ledger, pools, spins, jackpots)
    result.discrepancies = sorted((d for d in found if scope.keeps(d)), key=sort_key)
    for request_id, fact in spins.settled.items():
        if in_scope(fact):
            sample = result.rtp.setdefault(fact.data.game, RtpSample(fact.data.game))
            sample.add(fact.data.stake_minor, spin_return_micro(fact.data))
    return result


def _network_of(config: PoolsConfig, game: str) -> str | None:
    try:
        return config.network_for_game(game).network_id
    except KeyError:
        return None
