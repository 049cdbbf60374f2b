"""The wallet, recomputed from postings only: balances per account and currency, and each wager's life."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from services.audit.core import remainders
from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy, fact_finding
from shared.events.wallet import (
    CASHIER,
    HOUSE,
    POSTED_EVENTS,
    Deposited,
    RemainderCredited,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
    Withdrawn,
    jackpot_account,
    player_account,
)
from shared.money import MICRO_PER_MINOR

_POSTED = POSTED_EVENTS


@dataclass
class Wager:
    """One debited wager and how it ended (at most one settlement or one refund may exist)."""

    debit: Fact
    settlement: Fact | None = None
    refund: Fact | None = None

    @property
    def data(self) -> WagerDebited:
        return self.debit.data


@dataclass
class Ledger:
    balances_micro: Counter = field(default_factory=Counter)  # (account, currency) -> micro
    wagers: dict[str, Wager] = field(default_factory=dict)
    jackpot_credits_minor: dict[str, int] = field(default_factory=dict)  # wager id -> jackpot_win_minor
    remainders: dict[remainders.Key, remainders.Outstanding] = field(default_factory=dict)
    credits: list[Fact] = field(default_factory=list)  # RemainderCredited, for the reports (not carried by a seam)
    discrepancies: list[Discrepancy] = field(default_factory=list)

    def game_of(self, wager_id: str) -> str | None:
        wager = self.wagers.get(wager_id)
        return wager.data.game if wager is not None else None

    def jackpot_liability_micro(self, network_id: str, currency: str) -> int:
        return self.balances_micro[(jackpot_account(network_id), currency)]


def expected_postings(data) -> Counter:
    """The net posting per account an event must carry, derived from the amounts it declares."""
    player = player_account(data.player_id)
    net: Counter = Counter()
    if isinstance(data, Deposited):
        net[player] += data.amount_minor * MICRO_PER_MINOR
        net[CASHIER] -= data.amount_minor * MICRO_PER_MINOR
    elif isinstance(data, Withdrawn):
        net[player] -= data.amount_minor * MICRO_PER_MINOR
        net[CASHIER] += data.amount_minor * MICRO_PER_MINOR
    elif isinstance(data, (WagerDebited,)):
        net[player] -= data.amount_minor * MICRO_PER_MINOR
        net[HOUSE] += data.amount_minor * MICRO_PER_MINOR
    elif isinstance(data, WagerRefunded):
        net[player] += data.amount_minor * MICRO_PER_MINOR
        net[HOUSE] -= data.amount_minor * MICRO_PER_MINOR
    elif isinstance(data, RemainderCredited):
        net[player] += data.amount_minor * MICRO_PER_MINOR
        net[HOUSE] -= data.amount_minor * MICRO_PER_MINOR
    elif isinstance(data, WagerSettled):
        net[player] += data.win_minor * MICRO_PER_MINOR
        net[HOUSE] -= data.house_win_minor * MICRO_PER_MINOR + data.breakage_micro + data.contribution_micro
        net[jackpot_account(data.network_id)] += (
            data.contribution_micro + data.breakage_micro - data.jackpot_win_minor * MICRO_PER_MINOR
        )
    return Counter({account: amount for account, amount in net.items() if amount != 0})


def fold_ledger(facts: list[Fact], ledger: Ledger | None = None) -> Ledger:
    """Apply every posted wallet event in read order (per-player partition order) and check each one; `ledger`: the
    state to continue from (an audit resumed from a checkpoint)."""
    ledger = ledger or Ledger()
    for fact in facts:
        if isinstance(fact.data, _POSTED):
            _apply(ledger, fact)
    return ledger


def _apply(ledger: Ledger, fact: Fact) -> None:
    data = fact.data
    problems = ledger.discrepancies
    if sum(posting.amount_micro for posting in data.postings) != 0:
        total = sum(posting.amount_micro for posting in data.postings)
        problems.append(_found("postings-unbalanced", fact, f"postings sum to {total} micro {data.currency}, not 0"))
    net: dict[str, int] = {}
    for posting in data.postings:
        net[posting.account] = net.get(posting.account, 0) + posting.amount_micro
        ledger.balances_micro[(posting.account, data.currency)] += posting.amount_micro
    net = {account: amount for account, amount in net.items() if amount != 0}
    wanted = expected_postings(data)
    if net != wanted:
        problems.append(_found("postings-mismatch", fact, f"postings {dict(net)} but the amounts imply {dict(wanted)}"))
    if isinstance(data, WagerSettled) and data.win_minor != data.house_win_minor + data.jackpot_win_minor:
        problems.append(_found("postings-mismatch", fact, "win_minor != house_win_minor + jackpot_win_minor"))
    _check_player_balance(ledger, fact)
    track_wager(ledger, fact)
    problems += remainders.fold(ledger.remainders, fact, ledger.game_of)
    if isinstance(data, RemainderCredited):
        ledger.credits.append(fact)


def _check_player_balance(ledger: Ledger, fact: Fact) -> None:
    data = fact.data
    balance_micro = ledger.balances_micro[(player_account(data.player_id), data.currency)]
    if balance_micro < 0:
        ledger.discrepancies.append(_found("balance-negative", fact, f"balance {balance_micro} micro {data.currency}"))
    if balance_micro != data.balance_after_minor * MICRO_PER_MINOR:
        ledger.discrepancies.append(
            _found(
                "balance-after-mismatch",
                fact,
                f"balance_after_minor {data.balance_after_minor}, postings give {balance_micro / MICRO_PER_MINOR}",
            )
        )


def track_wager(ledger: Ledger, fact: Fact) -> None:
    """Each wager's first debit and first closing (a finding for any other)."""
    data = fact.data
    if isinstance(data, WagerDebited):
        wager_id = str(data.transaction_id)
        if wager_id in ledger.wagers:
            ledger.discrepancies.append(
                _found("wager-debited-twice", fact, f"first debit {ledger.wagers[wager_id].debit.where}")
            )
            return
        ledger.wagers[wager_id] = Wager(fact)
        return
    if not isinstance(data, (WagerSettled, WagerRefunded)):
        return
    wager = ledger.wagers.get(str(data.wager_id))
    if wager is None:
        ledger.discrepancies.append(_found("settlement-without-debit", fact, f"no debit of wager {data.wager_id}"))
        return
    if wager.settlement is not None or wager.refund is not None:
        earlier = (wager.settlement or wager.refund).where
        ledger.discrepancies.append(
            _found("wager-closed-twice", fact, f"wager {data.wager_id} already closed at {earlier}")
        )
        return
    if data.player_id != wager.data.player_id or data.currency != wager.data.currency:
        ledger.discrepancies.append(_found("settlement-mismatch", fact, "player or currency differs from the debit"))
    if isinstance(data, WagerRefunded):
        wager.refund = fact
        if data.amount_minor != wager.data.amount_minor:
            ledger.discrepancies.append(_found("settlement-mismatch", fact, "refund differs from the stake"))
        return
    wager.settlement = fact
    ledger.jackpot_credits_minor[str(data.wager_id)] = data.jackpot_win_minor


def _found(check: str, fact: Fact, detail: str) -> Discrepancy:
    data = fact.data
    return fact_finding(check, f"wager {getattr(data, 'wager_id', None) or data.transaction_id}", fact, detail)


def open_too_long(ledger: Ledger, now_ms: int, limit_ms: int | None) -> list[Discrepancy]:
    """Debits with neither settlement nor refund whose broker time is more than `limit_ms` before `now_ms`: no saga
    will close them any more (younger ones are in flight). `limit_ms` None: the platform is at rest (nothing in
    flight, e.g. a run's end), so every open debit is one, whatever its age or the brokers' clocks."""
    at_rest = limit_ms is None
    return [
        _found(
            "wager-open-too-long",
            wager.debit,
            f"open for {now_ms - wager.debit.timestamp_ms} ms ({'at rest' if at_rest else f'limit {limit_ms}'})",
        )
        for wager in ledger.wagers.values()
        if wager.settlement is None
        and wager.refund is None
        and (at_rest or now_ms - wager.debit.timestamp_ms > limit_ms)
    ]


def open_after_answer(ledger: Ledger, answers: list[Fact]) -> list[Discrepancy]:
    """Debits with neither settlement nor refund whose spin has answered its request with a rejection (`answers`: the
    spin.events facts that are a request's one answer): the spin closes nothing after its answer, so no saga will
    close them, and no time limit needs to pass before they are findings."""
    found = []
    for answer in answers:
        wager = ledger.wagers.get(str(answer.data.request_id))
        if wager is not None and wager.settlement is None and wager.refund is None:
            detail = f"open, and the spin answered {answer.data.code} at {answer.where}"
            found.append(_found("wager-open-after-answer", wager.debit, detail))
    return found
