"""What the audit reports: one Discrepancy per broken rule, named by the check that caught it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Discrepancy:
    """One broken rule. `check` is a stable name (e.g. "postings-unbalanced"); `where` names the record."""

    check: str
    subject: str
    detail: str
    event_id: str | None = None
    where: str | None = None
    at_ms: int | None = None
    player_id: str | None = None
    network_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


def fact_finding(check: str, subject: str, fact: Any, detail: str) -> Discrepancy:
    """A broken rule seen in one fact: the record, its time, and the player and network it names."""
    data = fact.data
    return Discrepancy(
        check,
        subject,
        f"{fact.envelope.type}: {detail}",
        event_id=fact.id,
        where=fact.where,
        at_ms=fact.timestamp_ms,
        player_id=getattr(data, "player_id", None),
        network_id=getattr(data, "network_id", None),
    )


# Every check the audit runs, with the sentence the report prints for it (docs/audit.md explains each).
CHECKS: dict[str, str] = {
    "undecodable-record": "an event topic holds a record the codec cannot decode",
    "duplicate-event-id": "one event id carries two different contents (only byte-identical redeliveries may repeat)",
    "postings-unbalanced": "the postings of a wallet event do not sum to zero",
    "postings-mismatch": "the postings of a wallet event do not match the amounts it declares",
    "balance-negative": "a player balance recomputed from postings went below zero",
    "balance-after-mismatch": "an event's balance_after_minor differs from the balance recomputed from postings",
    "wager-debited-twice": "one wager id was debited by two distinct events",
    "wager-closed-twice": "a wager was settled or refunded more than once, or both",
    "wager-open-too-long": "a debit has neither settlement nor refund, and is older than the saga's time limit (or "
    "the platform is at rest: every open debit)",
    "wager-open-after-answer": "a debit has neither settlement nor refund although its spin already answered its "
    "request with a rejection: no saga will close it",
    "settlement-without-debit": "a settlement or refund answers a wager that was never debited (forged)",
    "settlement-mismatch": "a settlement disagrees with its wager (player, currency, game, contribution rate)",
    "pool-identity-broken": "a pool movement breaks opening + contributions + seeds - paid = closing",
    "pool-chain-broken": "a pool movement's opening differs from the previous closing of that pool",
    "pool-unknown": "a pool movement names a pool that is not in its network's configuration",
    "pool-paid-twice": "one claim was paid by two distinct JackpotWon events",
    "jackpot-won-mismatch": "a JackpotWon's amount, levels or tier disagree with its pool movement",
    "jackpot-won-without-claim": "a JackpotWon answers no claim of a debited, re-derived spin (forged)",
    "drop-reveal-mismatch": "a must-drop reveal does not match its cycle's commitment, point, window or win (tampered)",
    "drop-reveal-uncommitted": "a must-drop pool revealed a drop point that was never committed before",
    "drop-revealed-twice": "one must-drop cycle was revealed (dropped) twice",
    "drop-commitment-changed": "a must-drop cycle's published commitment changed after it was published",
    "contribution-applied-twice": "one contribution id was applied to the pools twice",
    "contribution-without-wager": "a contribution names a wager that was never debited",
    "contribution-mismatch": "a contribution applied to the pools differs from what the wallet moved",
    "contributions-unbalanced": "a contributions batch's amounts differ from its pool movements",
    "jackpot-credit-mismatch": "the wallet's jackpot credit for a spin differs from the pools' payouts",
    "jackpot-liability-mismatch": "the wallet's jackpot liability account differs from the pools' net movements",
    "spin-without-debit": "a spin was settled for a wager the wallet never debited",
    "spin-settled-twice": "one request was answered by two distinct spin.settled events",
    "spin-unsettled-in-wallet": "a spin.settled has no wallet settlement (and is not in flight)",
    "spin-wallet-mismatch": "a spin.settled disagrees with the wallet's settlement of its wager",
    "spin-rederivation-mismatch": "re-playing the recorded seed and state gives a different spin",
    "spin-rederivation-failed": "the recorded seed, state or model version cannot be re-played",
    "seed-mismatch": "the seed in spin.settled differs from the seed persisted in the journal",
    "voided-outcome-shown": "a spin voided after its wager was refused was answered spin.settled all the same",
    "voided-wager-taken": "the wallet holds a wager of a spin whose outcome was voided as refused",
    "remainder-credit-mismatch": "a remainder credit is not the wallet's outstanding remainder rounded up to a cent",
    "remainder-mismatch": "a player's outstanding remainder on the wallet's record differs from the spins' state",
    "state-chain-broken": "a spin's state_before differs from the player's state after the previous spin",
    "seamless-bet-closed-twice": "a seamless bet was acknowledged won or rolled back more than once, or both",
    "seamless-close-without-bet": "a seamless win or rollback was acknowledged for a bet never decided or never held",
    "seamless-bet-open": "a seamless bet the operator may hold has neither an acknowledged win nor an acknowledged "
    "rollback (the platform at rest)",
    "seamless-win-mismatch": "a seamless round's acknowledged win is not its spin's settlement (stake, currency, win, "
    "pool shares, balance), or no spin settled on it (the platform at rest)",
    "seamless-settlement-without-win": "a spin settled on a seamless round the operator acknowledged no win for",
    "seamless-stakes-unbalanced": "Σ seamless bets − rollbacks of the closed rounds differs from the stakes the spins "
    "settled on them (the platform at rest)",
    "projection-unreadable": "the projection could not be read, so it could not be compared",
    "projection-row-missing": "the projection lacks a row the events imply",
    "projection-row-extra": "the projection holds a row no event implies",
    "projection-row-differs": "a projection row differs from the fold of the events",
}


def sort_key(discrepancy: Discrepancy) -> tuple[Any, ...]:
    return (discrepancy.at_ms or 0, discrepancy.check, discrepancy.subject, discrepancy.detail)
