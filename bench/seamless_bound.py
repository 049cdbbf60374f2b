"""Issue 47's latency criterion (pure): the answer's path in ledger and in seamless mode, and the verdict
seamless p99 ≤ ledger p99 + calls on the path × the wallet's p99 a call + extra commits on the path × commit p99."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerPath:
    """What a spin's answer waits for, in order: `steps` as sentences; `wallet_calls` HTTP calls to the operator's
    wallet; `commits` Kafka transactions committed; `plain_writes` acknowledged records written outside a
    transaction."""

    mode: str
    steps: tuple[str, ...]
    wallet_calls: int
    commits: int
    plain_writes: int = 0


# A Rising Joker spin without a pool claim (the bench's): one PlaceWager, debit and settlement together.
LEDGER_PATH = AnswerPath(
    "ledger",
    (
        "spin: reads the request; commits the seed drawn (spin.journal) and the PlaceWager (wallet.internal)",
        "wallet: reads the PlaceWager; commits the wager debited and settled (wallet.events)",
        "spin: reads the settlement; commits the answer spin.settled (spin.events)",
    ),
    wallet_calls=0,
    commits=3,
)
SEAMLESS_PATH = AnswerPath(
    "seamless",
    (
        "spin: reads the request; commits the seed drawn (spin.journal) and the PlaceWager (wallet.internal)",
        "saga loop: reads the PlaceWager; commits SeamlessBetDecided (wallet.seamless)",
        "saga outbox: finds the bet owed (an idle outbox looks again after a short wait); calls the wallet: the bet",
        "saga outbox: writes the bet's answer, acknowledged, not transactional (wallet.seamless-calls)",
        "saga loop: reads it; commits SeamlessBetAccepted and SeamlessWinDecided (wallet.seamless)",
        "saga outbox: finds the win owed; calls the wallet: the win",
        "saga outbox: writes the win's answer, acknowledged, not transactional (wallet.seamless-calls)",
        "saga loop: reads it; commits SeamlessWinAcknowledged (wallet.seamless)",
        "spin: reads the acknowledged win; commits the answer spin.settled (spin.events)",
    ),
    wallet_calls=2,
    commits=5,
    plain_writes=2,
)


@dataclass(frozen=True)
class Measured:
    """One run's figures, in ms: each mode's spin answer p99, the wallet's own p99 a call, the run's commit p99."""

    ledger_p99_ms: float
    seamless_p99_ms: float
    wallet_call_p99_ms: float
    commit_p99_ms: float


def extra_commits(seamless: AnswerPath, ledger: AnswerPath) -> int:
    """The Kafka transactions seamless mode adds to the answer's path (the criterion's count)."""
    extra = seamless.commits - ledger.commits
    assert extra >= 0, f"the seamless path commits {seamless.commits} times, fewer than the ledger's {ledger.commits}"
    return extra


def bound_ms(measured: Measured, seamless: AnswerPath = SEAMLESS_PATH, ledger: AnswerPath = LEDGER_PATH) -> float:
    calls = seamless.wallet_calls - ledger.wallet_calls
    return (
        measured.ledger_p99_ms
        + calls * measured.wallet_call_p99_ms
        + extra_commits(seamless, ledger) * measured.commit_p99_ms
    )


def verdict(measured: Measured, seamless: AnswerPath = SEAMLESS_PATH, ledger: AnswerPath = LEDGER_PATH) -> dict:
    """The bound, its terms, and whether the seamless p99 is within it (equal passes: the criterion says ≤)."""
    bound = bound_ms(measured, seamless, ledger)
    calls = seamless.wallet_calls - ledger.wallet_calls
    commits = extra_commits(seamless, ledger)
    return {
        "formula": (
            f"{measured.ledger_p99_ms} + {calls} × {measured.wallet_call_p99_ms} + {commits} × {measured.commit_p99_ms}"
        ),
        "wallet_calls_on_path": calls,
        "extra_commits_on_path": commits,
        "extra_plain_writes_on_path": seamless.plain_writes - ledger.plain_writes,  # not in the criterion's sum
        "bound_ms": round(bound, 3),
        "seamless_p99_ms": measured.seamless_p99_ms,
        "margin_ms": round(bound - measured.seamless_p99_ms, 3),
        "passed": measured.seamless_p99_ms <= bound,
    }


def run_problems(modes: dict[str, dict], answers: dict[str, int]) -> list[str]:
    """What makes a run's percentiles unfit to judge by: a spin of the phase unanswered when the load stopped waiting
    (its latency is missing from the p99), a refused spin (no latency at all), a request not answered exactly once."""
    found = []
    for mode, figures in modes.items():
        if figures["answered"] < figures["requests"]:
            found.append(f"{mode}: {figures['requests'] - figures['answered']} of {figures['requests']} unanswered")
        if figures["rejected"]:
            found.append(f"{mode}: refused {figures['rejected']}")
    if answers["once"] != answers["requests"]:
        found.append(f"answers: {answers['more']} requests answered more than once, {answers['none']} never")
    return found


def markdown(document: dict) -> str:
    """The result file's page, rendered from its JSON."""
    plan, judged, modes = document["plan"], document["verdict"], document["modes"]
    calls, commits, machine = document["wallet_calls"], document["commits"], document["machine"]
    answers = document["answers"]
    problems = document["problems"]
    lines = [
        "# Seamless against ledger latency (issue 47)",
        "",
        *([f"**Not a valid run**: {'; '.join(problems)}.", ""] if problems else []),
        f"**{'PASS' if judged['passed'] else 'FAIL'}**: seamless p99 {judged['seamless_p99_ms']} ms "
        f"{'≤' if judged['passed'] else '>'} bound {judged['bound_ms']} ms = ledger p99 + calls × wallet p99 a call "
        f"+ extra commits × commit p99 = {judged['formula']} (margin {judged['margin_ms']} ms).",
        "",
        f"One run, started {document['started_at']}: Rising Joker spins of stake {plan['stake_minor']}, "
        f"{plan['rate_per_mode_per_s']} spins/s of each mode side by side ({plan['ledger_operator']} on the ledger, "
        f"{plan['seamless_operator']} seamless on the reference wallet at {plan['wallet_latency_ms']} ms a call), "
        f"{plan['seconds']} s measured after {plan['warmup_s']} s of warm-up, "
        f"{plan['players_per_mode']} players a mode.",
        "",
        "| mode | requests | settled | refused | p50 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, figures in modes.items():
        refused = sum(figures["rejected"].values())
        row = (figures["requests"], figures["settled"], refused)
        row += (figures["p50_ms"], figures["p99_ms"], figures["max_ms"])
        lines.append(f"| {mode} | " + " | ".join(str(value) for value in row) + " |")
    lines += [
        "",
        f"- The wallet's own time a call ({calls['measured_by']}'s side: its handler's start to its answer): "
        f"{calls['calls']} calls, p50 {calls['p50_ms']} ms, p99 {calls['p99_ms']} ms.",
        f"- Commits of the path's loops in the phase ({commits['commits']}; p99 interpolated inside the histogram's "
        f"buckets): p99 {commits['p99_ms']} ms; "
        + ", ".join(f"{name} {figures['p99_ms']} ms" for name, figures in commits["by_service"].items())
        + ".",
        f"- Answers on spin.events: {answers['once']} of {answers['requests']} requests answered exactly once, "
        f"{answers['more']} more than once, {answers['none']} not at all.",
        f"- The machine: {machine['cpus']} CPUs, load (1/5/15 min) {machine['load_before_1_5_15min']} before, "
        f"{machine['load_after_1_5_15min']} after{_busy(machine)}.",
        "",
        "## The answer's path",
        "",
    ]
    for mode, hops in document.get("hops", {}).items():
        lines += [f"Hops of the {mode} spins (broker append times of their records):", ""]
        lines += ["| hop | n | p50 ms | p99 ms |", "|---|---|---|---|"]
        lines += [f"| {hop['hop']} | {hop['samples']} | {hop['p50_ms']} | {hop['p99_ms']} |" for hop in hops]
        lines.append("")
    for mode, path in document["paths"].items():
        lines.append(
            f"**{mode}**: {path['wallet_calls']} wallet calls, {path['commits']} transactional commits, "
            f"{path['plain_writes']} acknowledged writes outside a transaction."
        )
        lines.append("")
        lines += [f"{n}. {step}" for n, step in enumerate(path["steps"], 1)]
        lines.append("")
    lines.append(
        f"The bound counts {judged['wallet_calls_on_path']} calls and {judged['extra_commits_on_path']} extra "
        f"commits; the {judged['extra_plain_writes_on_path']} acknowledged writes of the calls' answers and the "
        "outbox's wait for owed calls are on the path too and are not in the criterion's sum."
    )
    return "\n".join(lines) + "\n"


def _busy(machine: dict) -> str:
    """A word on a machine already loaded past its CPUs before the run: its timings are not the platform's alone."""
    if machine["load_before_1_5_15min"][0] <= machine["cpus"]:
        return ""
    return " — more runnable work than CPUs before the run began: these timings are not final"
