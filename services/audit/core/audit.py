"""One audit over raw records: collect, fold the wallet and the pools, re-derive the spins, cross-check them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from services.audit.core.collect import Facts, RawRecord, collect
from services.audit.core.drops import Drops, check_drops
from services.audit.core.findings import Discrepancy, sort_key
from services.audit.core.jackpots import JackpotCheck, check_jackpots
from services.audit.core.ledger import Ledger, fold_ledger, open_after_answer, open_too_long
from services.audit.core.pools import Pools, fold_pools
from services.audit.core import remainders
from services.audit.core.rederive import EngineLookup, carried_remainder, default_lookup
from shared.rtp import RtpSample, spin_return_micro
from services.audit.core.scope import Scope
from services.audit.core.seamless import SeamlessCheck, check_seamless, fold_rounds, held_at_operators
from services.audit.core.spins import Spins, check_spins, state_now
from shared.config import SAGA_TIME_LIMIT_MS
from shared.events.seamless import SeamlessWinDecided
from shared.events.spin import SpinRejected, SpinSettled, request_answer_id
from shared.pools import PoolsConfig, load_pools
from shared.topics import WALLET_SEAMLESS

if TYPE_CHECKING:
    from services.audit.core.seam import Seam


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
    drops: Drops = field(default_factory=Drops)
    latest_ms: int = 0  # the latest broker time read (or carried by the seam)
    totals: Counter = field(default_factory=Counter)  # records, events, spins re-derived since the first audit
    seamless: SeamlessCheck = field(default_factory=SeamlessCheck)  # a seamless operator's rounds (wallet.seamless)

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
    seam: Seam | None = None,
    problems: list[str | None] | None = None,
    at_rest: bool = False,
) -> AuditResult:
    """Everything the audit checks from the raw topics alone; `discrepancies` holds those inside the scope, sorted.
    `decoded` hears the decoding's progress (see collect). `now_ms` dates the audit, for debits open longer than the
    saga's time limit (None: the latest broker time read). `seam`: the state at a checkpoint, when `records` are what
    came after it (consumed: its states go on); the findings are then the seam's final ones and those of the tail.
    `problems`: the records' provenance problems when the reader has checked them (see collect). `at_rest`: nothing is
    in flight (a run's end), so every open debit is a finding, not only those past the saga's time limit."""
    config = config or load_pools()
    facts = collect(
        records, until_ms=scope.until_ms, decoded=decoded, seen=seam.seen if seam else None, problems=problems
    )
    wallet_facts = [fact for fact in facts.facts if fact.topic == "wallet.events"]
    jackpot_facts = [fact for fact in facts.facts if fact.topic == "jackpot.events"]
    spin_facts = [fact for fact in facts.facts if fact.topic in ("spin.events", "spin.journal")]
    ledger = fold_ledger(wallet_facts, seam.ledger if seam else None)
    pools = fold_pools(jackpot_facts, config, seam.pools if seam else None)

    def in_scope(fact) -> bool:
        return scope.covers_spin(fact.timestamp_ms, fact.data.player_id, _network_of(config, fact.data.game))

    seamless_facts = [fact for fact in facts.facts if fact.topic == WALLET_SEAMLESS]
    rounds = fold_rounds(seamless_facts)
    held = held_at_operators(rounds)
    spins = check_spins(spin_facts, ledger, config, lookup, in_scope, seam.spins if seam else None, held)
    jackpots = check_jackpots(ledger, pools, spins, config, held)
    seamless = check_seamless(rounds, spins.settled, at_rest)
    unreconciled = remainders.reconcile(
        ledger.remainders, lambda key: state_now(spins, key), lambda wager: wager in spins.settled, carried_remainder
    )
    seamless_wins = [f for f in facts.facts if f.topic == WALLET_SEAMLESS and isinstance(f.data, SeamlessWinDecided)]
    unreconciled += remainders.seamless_credits(seamless_wins, spins.strands)
    latest_ms = max([fact.timestamp_ms for fact in facts.facts] + [seam.latest_ms if seam else 0])
    limit_ms = None if at_rest else SAGA_TIME_LIMIT_MS
    stale = open_too_long(ledger, latest_ms if now_ms is None else now_ms, limit_ms)
    stale += open_after_answer(ledger, [fact for fact in spin_facts if _rejects_its_request(fact)])
    drops = seam.drops if seam else Drops()
    found = (
        (seam.findings if seam else [])
        + facts.discrepancies
        + ledger.discrepancies
        + stale
        + pools.discrepancies
        + spins.discrepancies
        + jackpots.discrepancies
        + seamless.discrepancies
        + unreconciled
    ) + check_drops(jackpot_facts, config, drops, pools.wins)
    result = AuditResult(
        scope, facts, ledger, pools, spins, jackpots, drops=drops, latest_ms=latest_ms, seamless=seamless
    )
    result.discrepancies = sorted((d for d in found if scope.keeps(d)), key=sort_key)
    result.rtp = dict(seam.rtp) if seam else {}
    for fact in spin_facts:
        if (
            isinstance(fact.data, SpinSettled)
            and spins.settled.get(str(fact.data.request_id)) is fact
            and in_scope(fact)
        ):
            sample = result.rtp.setdefault(fact.data.game, RtpSample(fact.data.game))
            sample.add(fact.data.stake_minor, spin_return_micro(fact.data))
    result.totals = (seam.totals if seam else Counter()) + Counter(
        {
            "records": facts.records,
            "distinct_events": len(facts.facts),
            "redeliveries_collapsed": facts.redeliveries,
            "quarantined": len(facts.quarantined),
            "spins_rederived": spins.rederived,
        }
    )
    return result


def _rejects_its_request(fact) -> bool:
    """A spin.rejected that is an accepted request's one answer, not an answer to one record of it (a late or
    conflicting repeat, which leaves the spin in flight)."""
    data = fact.data
    return (
        isinstance(data, SpinRejected)
        and data.request_id is not None
        and fact.id == str(request_answer_id(data.request_id))
    )


def _network_of(config: PoolsConfig, game: str) -> str | None:
    try:
        return config.network_for_game(game).network_id
    except KeyError:
        return None
