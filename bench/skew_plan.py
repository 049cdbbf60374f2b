"""The skewed-broker run's plan and verdict (pure): which partitions the skewed node leads, which players each group
has, what their clients' clocks say, and what a run must show (every wager closed, nothing closing refused by age)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from shared.config import DEDUP_WINDOW_MS
from shared.partitioning import partition_for
from shared.topics import JACKPOT_INTERNAL, NETWORK_PARTITIONS, PLAYER_PARTITIONS, SPIN_REQUESTS, WALLET_INTERNAL

# Player partitions where the skewed node leads spin.requests and wallet.internal: the spin dates a wager's debit by
# that clock (it is accepted) and its settlement by wallet.events' (a node on time), so to the wallet every closing
# command looks an hour older than its debit; these clients' clocks agree with the leader they write to.
AHEAD = (0, 1, 2)
# Player partitions where it leads wallet.internal only: a client on time, so each debit the spin dates looks an hour
# old to the wallet and is refused by age (REQUEST_EXPIRED), taking nothing (docs/wallet.md).
OPENING_EXPIRED = (3, 4, 5)
LED = {
    SPIN_REQUESTS: AHEAD,
    WALLET_INTERNAL: AHEAD + OPENING_EXPIRED,
    JACKPOT_INTERNAL: tuple(range(NETWORK_PARTITIONS)),
}
# The refusals by age a closing or internal command must never get (wallet, jackpot claim, jackpot contribution).
AGE_CODES = ("REQUEST_EXPIRED", "CLAIM_EXPIRED", "EXPIRED")
CLOSING_TYPES = ("reelstream.wallet.settle-wager.v1", "reelstream.wallet.refund-wager.v1")
# The internal commands the run must show decided past the window (else it proved nothing about them): a wager's
# settlement, the jackpot's contributions and claims.
EXERCISED_TYPES = (
    "reelstream.wallet.settle-wager.v1",
    "reelstream.jackpot.contribute.v1",
    "reelstream.jackpot.claim.v1",
)


def replicas(topic: str, partition: int, skewed: int, others: tuple[int, int]) -> list[int]:
    """The replica list of one partition (its first replica leads: the cluster keeps preferred leaders): the skewed
    node first where LED names the partition, else last, the two others taking turns."""
    first, second = others[partition % 2], others[(partition + 1) % 2]
    if partition in LED.get(topic, ()):
        return [skewed, first, second]
    return [first, second, skewed]


def assignment(topic: str, partitions: int, skewed: int, others: tuple[int, int]) -> dict[int, list[int]]:
    return {p: replicas(topic, p, skewed, others) for p in range(partitions)}


@dataclass(frozen=True)
class Players:
    ahead: tuple[str, ...]
    opening_expired: tuple[str, ...]
    # One player of each AHEAD partition whose first spin is forced to win a jackpot: a claim dated an hour before the
    # jackpot's clock, then a SettleWager (the one closing command a spin sends apart from its debit) likewise.
    winners: tuple[str, ...]


def players(per_partition: int, stem: str = "skew") -> Players:
    """`per_partition` players on each player partition, named `stem-n` in order of n, split by group."""
    found: dict[int, list[str]] = {p: [] for p in range(PLAYER_PARTITIONS)}
    n = 0
    while any(len(names) < per_partition for names in found.values()):
        name = f"{stem}-{n:04d}"
        names = found[partition_for(name.encode(), PLAYER_PARTITIONS)]
        if len(names) < per_partition:
            names.append(name)
        n += 1
    return Players(
        ahead=tuple(name for p in AHEAD for name in found[p]),
        opening_expired=tuple(name for p in OPENING_EXPIRED for name in found[p]),
        winners=tuple(found[p][0] for p in AHEAD),
    )


def client_offset_s(player: str, group: Players, skew_s: int) -> int:
    """How far the player's client clock is ahead: that of the leader its requests go to."""
    return skew_s if player in group.ahead else 0


@dataclass(frozen=True)
class Observed:
    """What a run saw: answers by group and code, the audit, the refusals by age of the money path's commands."""

    sent: Mapping[str, int]  # group -> requests
    answers: Mapping[str, Mapping[str, int]]  # group -> code ("SETTLED" for a settlement) -> count
    open_wagers: int
    discrepancies: int
    closing_refused_by_age: int  # SettleWager / RefundWager refused with an age code
    jackpot_refused_by_age: int  # claims refused with an age code
    internal_dead_letters: int  # records of wallet.internal and jackpot.internal dead-lettered (contributions too)
    winners: int  # players forced to win a jackpot with their first spin
    winners_paid: int  # of them, those whose spin settled with more than 0 from the pool
    skewed_clock_ahead_s: float  # the skewed node's LogAppendTime minus the wall clock, as measured
    past_window: Mapping[str, bool]  # EXERCISED_TYPES -> whether every one was decided past the window (and any was)


def failures(seen: Observed, skew_s: int, clock_tolerance_s: float = 30.0) -> list[str]:
    """Everything the run must show and did not; empty when it passed."""
    found = []
    if abs(seen.skewed_clock_ahead_s - skew_s) > clock_tolerance_s:
        found.append(f"the skewed node's append time is {seen.skewed_clock_ahead_s:.1f} s ahead, not {skew_s} s")
    for kind, exercised in seen.past_window.items():
        if not exercised:
            found.append(f"no {kind} was decided past the window (or one within it): the run proves nothing of it")
    for group, sent in seen.sent.items():
        answered = sum(seen.answers.get(group, {}).values())
        if answered != sent:
            found.append(f"{group}: {answered} of {sent} requests answered")
    ahead = dict(seen.answers.get("ahead", {}))
    if set(ahead) - {"SETTLED"}:
        found.append(f"ahead: refusals {ahead} (every spin must settle)")
    expired = dict(seen.answers.get("opening_expired", {}))
    if set(expired) - {"REQUEST_EXPIRED"}:
        found.append(f"opening_expired: answers {expired} (every debit must be refused by age)")
    if seen.open_wagers:
        found.append(f"{seen.open_wagers} wagers open at the end")
    if seen.discrepancies:
        found.append(f"{seen.discrepancies} audit discrepancies")
    if seen.closing_refused_by_age:
        found.append(f"{seen.closing_refused_by_age} settlements or refunds refused by age")
    if seen.jackpot_refused_by_age:
        found.append(f"{seen.jackpot_refused_by_age} claims refused by age")
    if seen.internal_dead_letters:
        found.append(f"{seen.internal_dead_letters} internal commands dead-lettered")
    if seen.winners_paid != seen.winners:
        found.append(f"{seen.winners - seen.winners_paid} of {seen.winners} forced jackpot wins paid nothing")
    return found


def past_window(ages: Mapping[str, Mapping[str, float]]) -> dict[str, bool]:
    """For each exercised type: whether some were decided and the youngest was older than the window."""
    window_s = DEDUP_WINDOW_MS / 1000
    return {kind: kind in ages and ages[kind]["min_age_s"] > window_s for kind in EXERCISED_TYPES}


def markdown(result: Mapping) -> str:
    """The run's result file for people: what was led by the skewed node, what each group got, what was refused."""
    verdict = "passed" if not result["failures"] else "FAILED: " + "; ".join(result["failures"])
    audit = result["audit"]
    lines = [
        "# Skewed broker: one of three brokers an hour ahead",
        "",
        f"Node 3's wall clock runs {result['skew_s']} s ahead (libfaketime; its LogAppendTime measured "
        f"{result['clocks_ahead_s']} s ahead of this machine, by node). It leads every partition of wallet.internal "
        f"and jackpot.internal and spin.requests partitions {list(AHEAD)}; nodes 1 and 2 lead the rest.",
        "",
        "| internal command | decided | youngest age (s) | oldest age (s) |",
        "|---|---|---|---|",
        *(
            f"| {kind} | {ages['count']} | {ages['min_age_s']} | {ages['max_age_s']} |"
            for kind, ages in result["command_ages"].items()
        ),
        "",
        "| group | requests | answers |",
        "|---|---|---|",
    ]
    for group, sent in result["sent"].items():
        answers = ", ".join(f"{code} {count}" for code, count in sorted(result["answers"].get(group, {}).items()))
        lines.append(f"| {group} | {sent} | {answers} |")
    lines += [
        "",
        f"- settlements or refunds refused by age: {result['closing_refused_by_age']}; debits refused by age "
        f"(expected, the `opening_expired` group): {result['opening_refused_by_age']}",
        f"- claims refused by age: {result['jackpot_refused_by_age']}; internal commands dead-lettered: "
        f"{result['internal_dead_letters']}; forced jackpot wins paid (minor units): {result['jackpot_paid_minor']}",
        f"- audit at rest: {audit['discrepancies']} discrepancies, {audit['open_wagers']} open wagers, "
        f"{audit['spins_rederived']} spins re-derived",
        f"- run: {result['seconds']} s of spins on {result['cpus']} CPUs; stages (s): {result.get('stages_s', {})}",
        "",
        f"Verdict: {verdict}.",
        "",
    ]
    return "\n".join(lines)
