"""The wallet against the pools: each contribution counted once and equal on both sides, every jackpot credit equal
to the pools' payout for that spin, every win answering a re-derived claim, and the liability account exact."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from services.audit.core.findings import Discrepancy, fact_finding
from services.audit.core.ledger import Ledger
from services.audit.core.pools import Pools
from services.audit.core.seamless import Round
from services.audit.core.spins import Spins
from shared.money import MICRO_PER_MINOR
from shared.pools import PoolsConfig


@dataclass
class Liability:
    """One network's jackpot liability from both sides; `in_flight_micro` explains a difference that is not a fault."""

    network_id: str
    currency: str
    wallet_micro: int
    pools_micro: int
    in_flight_micro: int

    @property
    def balanced(self) -> bool:
        return self.pools_micro - self.wallet_micro == self.in_flight_micro


@dataclass
class JackpotCheck:
    liabilities: list[Liability] = field(default_factory=list)
    in_flight: Counter = field(default_factory=Counter)  # what is pending at the captured end offsets, by kind
    discrepancies: list[Discrepancy] = field(default_factory=list)


def check_jackpots(
    ledger: Ledger, pools: Pools, spins: Spins, config: PoolsConfig, seamless: dict[str, Round] | None = None
) -> JackpotCheck:
    """`seamless`: the rounds a seamless operator's wallet holds (core/seamless.py), by wager id: their contributions
    are the operator's to owe and their pool shares ride in the round's one win, not in the ledger."""
    check = JackpotCheck()
    adjust_micro: Counter = Counter()  # network -> pools side minus wallet side explained by work in flight
    seamless = seamless or {}
    _contributions(check, ledger, pools, adjust_micro, seamless)
    _wins(check, ledger, pools, spins, adjust_micro, seamless)
    for network in config.networks:
        liability = Liability(
            network.network_id,
            network.currency,
            ledger.jackpot_liability_micro(network.network_id, network.currency),
            pools.network_net_micro(network.network_id),
            adjust_micro[network.network_id],
        )
        check.liabilities.append(liability)
        if not liability.balanced:
            check.discrepancies.append(
                Discrepancy(
                    "jackpot-liability-mismatch",
                    f"network {network.network_id}",
                    f"wallet jackpot:{network.network_id} {liability.wallet_micro} micro, "
                    f"pools' contributions - payouts "
                    f"{liability.pools_micro} micro, in flight {liability.in_flight_micro} micro",
                    network_id=network.network_id,
                )
            )
    return check


def _contributions(
    check: JackpotCheck, ledger: Ledger, pools: Pools, adjust_micro: Counter, seamless: dict[str, Round]
) -> None:
    for contribution_id, (applied, fact) in pools.applied.items():
        network_id = fact.data.network_id
        if contribution_id in seamless:  # owed by the seamless operator (reconciliation), not moved by the ledger
            adjust_micro[network_id] += applied.amount_micro
            continue
        wager = ledger.wagers.get(contribution_id)
        if wager is None:
            check.discrepancies.append(_found("contribution-without-wager", fact, f"contribution {contribution_id}"))
            continue
        if wager.refund is not None:
            check.discrepancies.append(
                _found("contribution-mismatch", fact, f"wager {contribution_id} was refunded after contributing")
            )
            continue
        if wager.settlement is None:
            check.in_flight["contributions applied, wager not settled yet"] += 1
            adjust_micro[network_id] += applied.amount_micro
            continue
        settled = wager.settlement.data
        moved_micro = settled.contribution_micro + settled.breakage_micro
        if applied.amount_micro != moved_micro or settled.network_id != network_id:
            check.discrepancies.append(
                _found(
                    "contribution-mismatch",
                    fact,
                    f"wager {contribution_id}: pools applied {applied.amount_micro} micro to {network_id}, "
                    f"wallet moved "
                    f"{moved_micro} micro to jackpot:{settled.network_id}",
                )
            )
    for wager_id, wager in ledger.wagers.items():
        if wager.settlement is None or wager_id in pools.applied:
            continue
        settled = wager.settlement.data
        if settled.contribution_micro + settled.breakage_micro:
            check.in_flight["settled wagers whose contribution is not applied yet"] += 1
            adjust_micro[settled.network_id] -= settled.contribution_micro + settled.breakage_micro


def _wins(
    check: JackpotCheck,
    ledger: Ledger,
    pools: Pools,
    spins: Spins,
    adjust_micro: Counter,
    seamless: dict[str, Round],
) -> None:
    paid_by_request: dict[str, int] = defaultdict(int)
    for claim_id, fact in pools.wins.items():
        won = fact.data
        request_id = str(won.request_id)
        claimed = spins.claims.get(request_id)
        if request_id in seamless and claimed is not None and won.tier in claimed:
            paid_by_request[request_id] += won.amount_minor  # paid in the round's one win, at the operator
            adjust_micro[won.network_id] -= won.amount_minor * MICRO_PER_MINOR
            continue
        wager = ledger.wagers.get(request_id)
        if wager is None or wager.data.player_id != won.player_id or claimed is None or won.tier not in claimed:
            reason = "no debited wager" if wager is None else f"the re-derived spin claims {list(claimed or ())}"
            check.discrepancies.append(
                _found("jackpot-won-without-claim", fact, f"claim {claim_id} of request {request_id}: {reason}")
            )
            continue
        paid_by_request[request_id] += won.amount_minor
        if wager.settlement is None:
            check.in_flight["jackpot wins not settled yet"] += 1
            adjust_micro[won.network_id] -= won.amount_minor * MICRO_PER_MINOR
    for wager_id, round_ in seamless.items():
        decided = round_.win_decided
        if decided is not None and decided.data.jackpot_win_minor != paid_by_request.get(wager_id, 0):
            detail = f"the round's win carries {decided.data.jackpot_win_minor} minor of pool shares, "
            detail += f"the pools paid {paid_by_request.get(wager_id, 0)}"
            check.discrepancies.append(fact_finding("jackpot-credit-mismatch", f"wager {wager_id}", decided, detail))
    for wager_id, credited_minor in ledger.jackpot_credits_minor.items():
        if credited_minor != paid_by_request.get(wager_id, 0):
            settlement = ledger.wagers[wager_id].settlement
            check.discrepancies.append(
                Discrepancy(
                    "jackpot-credit-mismatch",
                    f"wager {wager_id}",
                    f"wallet credited {credited_minor} minor from the jackpot, "
                    f"pools paid {paid_by_request.get(wager_id, 0)}",
                    event_id=settlement.id,
                    where=settlement.where,
                    at_ms=settlement.timestamp_ms,
                    player_id=settlement.data.player_id,
                    network_id=settlement.data.network_id,
                )
            )


def _found(check: str, fact, detail: str) -> Discrepancy:
    return fact_finding(check, f"network {fact.data.network_id}", fact, detail)
