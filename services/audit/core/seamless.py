"""A seamless operator's rounds against the spins (docs/audit.md, "Seamless rounds"): every accepted bet ends in exactly
one acknowledged win or one acknowledged rollback; Σ bets − rollbacks = the stakes the spins recorded; each win is its
spin's one settlement, its amount, balance and pool shares included. Pure, over wallet.seamless read whole."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy, fact_finding
from shared.events.seamless import (
    SeamlessBetAccepted,
    SeamlessBetDecided,
    SeamlessBetRefused,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
    SeamlessWinReported,
)

# The facts that close a round at the operator: its one win, or its one rollback.
CLOSING = (SeamlessWinAcknowledged, SeamlessRolledBack)
# Every check of this module: judged again by every audit over the whole of wallet.seamless, never carried as final.
CHECKS = frozenset(
    {
        "seamless-bet-closed-twice",
        "seamless-close-without-bet",
        "seamless-bet-open",
        "seamless-win-mismatch",
        "seamless-settlement-without-win",
        "seamless-stakes-unbalanced",
    }
)


@dataclass
class Round:
    """One wager's facts on wallet.seamless, in the order read."""

    bet: Fact | None = None
    accepted: Fact | None = None
    refused: Fact | None = None
    win_decided: Fact | None = None
    reported: Fact | None = None
    closings: list[Fact] = field(default_factory=list)

    def needs_closing(self) -> bool:
        """The operator may hold the stake: it took the bet, or its answer was in doubt and a rollback follows."""
        return self.accepted is not None or (self.refused is not None and self.refused.data.rolled_back)


@dataclass
class SeamlessCheck:
    rounds: dict[str, Round] = field(default_factory=dict)  # wager id -> its round
    bets_minor: Counter = field(default_factory=Counter)  # currency -> Σ bets of the closed rounds
    rollbacks_minor: Counter = field(default_factory=Counter)  # currency -> Σ acknowledged rollbacks
    stakes_minor: Counter = field(default_factory=Counter)  # currency -> Σ stakes of the spins settled on a round
    discrepancies: list[Discrepancy] = field(default_factory=list)


def fold_rounds(facts: list[Fact]) -> dict[str, Round]:
    """Each wager's round from the facts of wallet.seamless."""
    rounds: dict[str, Round] = {}
    for fact in facts:
        data = fact.data
        round_ = rounds.setdefault(str(data.wager_id), Round())
        if isinstance(data, SeamlessBetDecided) and round_.bet is None:
            round_.bet = fact
        elif isinstance(data, SeamlessBetAccepted) and round_.accepted is None:
            round_.accepted = fact
        elif isinstance(data, SeamlessBetRefused) and round_.refused is None:
            round_.refused = fact
        elif isinstance(data, SeamlessWinDecided) and round_.win_decided is None:
            round_.win_decided = fact
        elif isinstance(data, SeamlessWinReported):
            round_.reported = fact
        elif isinstance(data, CLOSING):
            round_.closings.append(fact)
    return rounds


def check_seamless(rounds: dict[str, Round], settled: dict[str, Fact], at_rest: bool) -> SeamlessCheck:
    """`rounds`: wallet.seamless folded whole (`fold_rounds`); `settled`: spin.settled by request id, every seamless
    one (a checkpoint keeps them: core/seam.py). `at_rest`: nothing is in flight, so a bet still open, or a win whose
    spin has not settled, is a finding, and the sums must balance."""
    check = SeamlessCheck(rounds=rounds)
    for wager_id, round_ in check.rounds.items():
        _closed_once(check, wager_id, round_, at_rest)
        _against_spin(check, wager_id, round_, settled.get(wager_id), at_rest)
    for wager_id, fact in settled.items():
        round_ = check.rounds.get(wager_id)
        if round_ is not None and round_.bet is not None:
            check.stakes_minor[fact.data.currency] += fact.data.stake_minor
            if not wins_acknowledged(round_):
                check.discrepancies.append(
                    _found("seamless-settlement-without-win", wager_id, fact, "the operator acknowledged no win")
                )
    if at_rest:  # else a spin may settle after its round's acknowledged win
        _balanced(check)
    return check


def held_at_operators(rounds: dict[str, Round]) -> dict[str, Round]:
    """The rounds whose bet was decided, by wager id: a seamless operator's wallet, not the ledger, holds their stakes
    and pays their wins (the pool shares in the one win)."""
    return {wager_id: round_ for wager_id, round_ in rounds.items() if round_.bet is not None}


def wins_acknowledged(round_: Round) -> list[Fact]:
    """The round's acknowledged wins (one, for a round the operator settled)."""
    return [fact for fact in round_.closings if isinstance(fact.data, SeamlessWinAcknowledged)]


def _closed_once(check: SeamlessCheck, wager_id: str, round_: Round, at_rest: bool) -> None:
    """Exactly one acknowledged win or rollback for a bet the operator may hold, none before its bet."""
    if round_.closings and (round_.bet is None or not round_.needs_closing()):
        what = "no bet was decided" if round_.bet is None else "the operator never held the bet"
        check.discrepancies.append(_found("seamless-close-without-bet", wager_id, round_.closings[0], what))
    for first, again in zip(round_.closings, round_.closings[1:]):
        detail = f"{_kind(again)} after {_kind(first)} at {first.where}"
        check.discrepancies.append(_found("seamless-bet-closed-twice", wager_id, again, detail))
    if not round_.closings and round_.needs_closing() and at_rest and round_.bet is not None:
        detail = "neither an acknowledged win nor an acknowledged rollback"
        if round_.reported is not None:
            detail += f"; its win was reported unacknowledged at {round_.reported.where}"
        check.discrepancies.append(_found("seamless-bet-open", wager_id, round_.bet, detail))
    if len(round_.closings) == 1 and round_.bet is not None:
        currency = round_.bet.data.currency
        check.bets_minor[currency] += round_.bet.data.amount_minor
        if isinstance(round_.closings[0].data, SeamlessRolledBack):
            check.rollbacks_minor[currency] += round_.closings[0].data.amount_minor


def _against_spin(check: SeamlessCheck, wager_id: str, round_: Round, spin: Fact | None, at_rest: bool) -> None:
    """The round's one win is its spin's settlement: stake, currency, amount, pool shares and balance."""
    won = wins_acknowledged(round_)
    if len(won) != 1 or round_.bet is None:
        return
    win = won[0]
    if spin is None:
        if at_rest:
            check.discrepancies.append(_found("seamless-win-mismatch", wager_id, win, "no spin.settled for the round"))
        return
    settled, bet = spin.data, round_.bet.data
    decided = round_.win_decided.data if round_.win_decided is not None else None
    pairs = [
        ("stake_minor", bet.amount_minor, settled.stake_minor),
        ("currency", win.data.currency, settled.currency),
        ("win_minor", win.data.amount_minor, settled.win_minor),
        ("balance_after_minor", win.data.balance_after_minor, settled.balance_after_minor),
        ("jackpot_win_minor", decided.jackpot_win_minor if decided else None, settled.jackpot_win_minor),
    ]
    for name, operator, spun in pairs:
        if operator != spun:
            detail = f"{name} {operator} in the round, {spun} in spin.settled at {spin.where}"
            check.discrepancies.append(_found("seamless-win-mismatch", wager_id, win, detail))


def _balanced(check: SeamlessCheck) -> None:
    """Σ bets − rollbacks of the closed rounds = Σ stakes the spins settled on them, per currency."""
    for currency in sorted(set(check.bets_minor) | set(check.stakes_minor)):
        held_minor = check.bets_minor[currency] - check.rollbacks_minor[currency]
        if held_minor != check.stakes_minor[currency]:
            check.discrepancies.append(
                Discrepancy(
                    "seamless-stakes-unbalanced",
                    f"currency {currency}",
                    f"Σ bets {check.bets_minor[currency]} − rollbacks {check.rollbacks_minor[currency]} minor, "
                    f"the spins' stakes {check.stakes_minor[currency]} minor",
                )
            )


def _kind(fact: Fact) -> str:
    return "a win" if isinstance(fact.data, SeamlessWinAcknowledged) else "a rollback"


def _found(check: str, wager_id: str, fact: Fact, detail: str) -> Discrepancy:
    return fact_finding(check, f"wager {wager_id}", fact, detail)
