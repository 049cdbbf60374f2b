"""The seamless fault run's checks, pure: the operator's ledger rows against the answers the clients got (every bet
won or rolled back exactly once, every win paid once, every balance what its rows say), the saga's open rounds, and
the fault plan's accounting (reelstream/chaos/seamless_faults.py runs them over a real run)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

OK = "OK"
PPM = 1_000_000
# A kind the plan expects this many times or more must have been injected at least once.
EXPECTED_AT_LEAST = 10


@dataclass(frozen=True)
class Row:
    """One transaction in the operator's ledger (refwallet.transactions)."""

    transaction_id: str
    kind: str  # bet | win | rollback
    player_id: str
    amount_minor: int
    round_id: str
    status: str
    bet_transaction_id: str | None = None
    rolled_back: bool = False
    won: bool = False


@dataclass(frozen=True)
class Answer:
    """What a client was answered for one spin request (its id is the round's id at the operator)."""

    request_id: str
    settled: bool
    stake_minor: int
    win_minor: int = 0
    code: str = ""


@dataclass(frozen=True)
class Rounds:
    bet: int  # bets the operator accepted
    won: int
    rolled_back: int
    refused: int  # bets the operator refused (no money moved)


def _accepted_bets(rows: Iterable[Row]) -> list[Row]:
    return [row for row in rows if row.kind == "bet" and row.status == OK]


def round_counts(rows: list[Row]) -> Rounds:
    bets = _accepted_bets(rows)
    won = {row.bet_transaction_id for row in rows if row.kind == "win" and row.status == OK}
    undone = {row.bet_transaction_id for row in rows if row.kind == "rollback" and row.status == OK}
    refused = sum(1 for row in rows if row.kind == "bet" and row.status != OK)
    ids = {bet.transaction_id for bet in bets}
    return Rounds(len(bets), len(won & ids), len(undone & ids), refused)


def ledger_problems(rows: list[Row], answers: list[Answer]) -> list[str]:
    """Every accepted bet ends in exactly one win or exactly one rollback (of its amount), never both; every win and
    rollback names an accepted bet; a round holds one accepted bet at most; a settled spin's round is its stake bet and
    one win of the amount answered; a refused spin's round moved no money; no round was played that nobody asked."""
    problems: list[str] = []
    bets = {bet.transaction_id: bet for bet in _accepted_bets(rows)}
    closing: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row.kind in ("win", "rollback") and row.status == OK:
            if row.bet_transaction_id not in bets:
                problems.append(f"{row.kind} {row.transaction_id} closes no accepted bet ({row.bet_transaction_id})")
            else:
                closing[row.bet_transaction_id].append(row)
    for bet_id, bet in bets.items():
        ends = closing.get(bet_id, [])
        if len(ends) != 1:
            kinds = ", ".join(sorted(row.kind for row in ends)) or "nothing"
            problems.append(f"bet {bet_id} (round {bet.round_id}) ends in {len(ends)}: {kinds}")
            continue
        end = ends[0]
        if end.kind == "rollback" and end.amount_minor != bet.amount_minor:
            problems.append(f"bet {bet_id} of {bet.amount_minor} rolled back with {end.amount_minor}")
        if (bet.won, bet.rolled_back) != (end.kind == "win", end.kind == "rollback"):
            problems.append(f"bet {bet_id} flagged won={bet.won} rolled_back={bet.rolled_back}, ended by a {end.kind}")
    by_round: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_round[row.round_id].append(row)
    for round_id, held in by_round.items():
        if len(_accepted_bets(held)) > 1:
            problems.append(f"round {round_id} holds {len(_accepted_bets(held))} accepted bets")
    asked = {answer.request_id: answer for answer in answers}
    problems += [
        f"round {round_id} at the operator, asked by no request" for round_id in by_round if round_id not in asked
    ]
    for answer in answers:
        problems += _answer_problems(answer, by_round.get(answer.request_id, []), closing)
    return problems


def _answer_problems(answer: Answer, held: list[Row], closing: dict[str, list[Row]]) -> list[str]:
    accepted = _accepted_bets(held)
    ends = [end for bet in accepted for end in closing.get(bet.transaction_id, [])]
    wins = [end for end in ends if end.kind == "win"]
    if not answer.settled:
        if wins:
            return [f"request {answer.request_id} refused {answer.code}, but the operator paid its win"]
        return []
    if [bet.amount_minor for bet in accepted] != [answer.stake_minor]:
        return [f"request {answer.request_id} settled, but its accepted bets are {[b.amount_minor for b in accepted]}"]
    if [win.amount_minor for win in wins] != [answer.win_minor]:
        paid = [win.amount_minor for win in wins]
        return [f"request {answer.request_id} settled winning {answer.win_minor}, the operator paid {paid}"]
    return []


def balance_problems(start_minor: dict[str, int], rows: list[Row], balances: dict[str, int]) -> list[str]:
    """Each player's balance at the operator = its start − accepted bets + wins + rollbacks (the OK rows)."""
    expected = dict(start_minor)
    sign = {"bet": -1, "win": 1, "rollback": 1}
    for row in rows:
        if row.status == OK:
            expected[row.player_id] = expected.get(row.player_id, 0) + sign[row.kind] * row.amount_minor
    return [
        f"player {player} holds {balances.get(player)}, its rows say {minor}"
        for player, minor in sorted(expected.items())
        if balances.get(player) != minor
    ]


def answer_problems(request_ids: list[str], answers: list[Answer]) -> list[str]:
    """Every request the load made was answered to its client, once."""
    heard = Counter(answer.request_id for answer in answers)
    return [
        f"request {request_id}: {heard[request_id]} answers to its client"
        for request_id in request_ids
        if heard[request_id] != 1
    ]


def fault_accounting(plan_ppm: dict[str, int], deliveries: int, injected: dict[str, int]) -> dict[str, dict]:
    """Per fault kind the plan names: its planned rate, how many the wallet injected and their share of the money
    calls delivered (ppm)."""
    return {
        kind: {
            "planned_ppm": rate,
            "injected": injected.get(kind, 0),
            "share_ppm": round(injected.get(kind, 0) * PPM / deliveries) if deliveries else 0,
        }
        for kind, rate in plan_ppm.items()
    }


def accounting_problems(accounted: dict[str, dict], deliveries: int) -> list[str]:
    """A kind the plan makes likely (EXPECTED_AT_LEAST expected) that never happened: the run did not test it."""
    return [
        f"{kind}: planned {row['planned_ppm']} ppm of {deliveries} calls, none injected"
        for kind, row in accounted.items()
        if row["planned_ppm"] * deliveries >= EXPECTED_AT_LEAST * PPM and row["injected"] == 0
    ]


def markdown(document: dict) -> str:
    """The short page of a run's JSON document."""
    faults = document["faults"]
    rounds = document["rounds"]
    latency = document["latency"]
    reconciliation, audit = document["reconciliation"], document["audit"]
    lines = [
        f"# Seamless fault run, {document['started_at']}",
        "",
        f"**{'PASSED' if document['passed'] else 'FAILED'}** in {document['duration_s']} s: {document['requests']} "
        f"spin requests of both games for one seamless operator on the reference wallet.",
        "",
        "| what | count |",
        "|---|---:|",
        f"| spin requests | {document['requests']} |",
        f"| settled | {document['settled']} |",
        f"| refused (by code) | {document['rejected'] or 0} |",
        f"| client retries (same request id) | {document['client_retries']} |",
        f"| money calls delivered to the wallet | {document['wallet_calls']} |",
        *(
            f"| {kind} injected (planned {row['planned_ppm']} ppm) | {row['injected']} ({row['share_ppm']} ppm) |"
            for kind, row in faults.items()
        ),
        f"| services restarted (SIGKILL) | {len(document['restarts'])} |",
        f"| rounds bet (accepted by the operator) | {rounds.get('bet')} |",
        f"| rounds won | {rounds.get('won')} |",
        f"| rounds rolled back | {rounds.get('rolled_back')} |",
        f"| bets the operator refused | {rounds.get('refused')} |",
        f"| saga rounds open / reported at the end | {document['saga_open']} / {document['saga_reported']} |",
        f"| requests without an answer on spin.events | {document['unanswered']} |",
        f"| most answers of one request | {document['answers_per_request_max']} |",
        f"| reconciliation differences | {reconciliation.get('differences')} (exit {reconciliation.get('exit')}) |",
        f"| audit discrepancies | {audit.get('discrepancies')} (exit {audit.get('exit')}) |",
        f"| ledger, balance and answer problems | {len(document['problems'])} |",
        "",
        f"Spin latency (asked to answered, retries included): p50 {latency.get('p50_s')} s, p99 "
        f"{latency.get('p99_s')} s, max {latency.get('max_s')} s.",
        "",
        "| restarted | signal | at (s) | back after (s) |",
        "|---|---|---:|---:|",
        *(f"| {r['service']} | {r['signal']} | {r['at_s']} | {r['back_s']} |" for r in document["restarts"]),
        "",
    ]
    return "\n".join(lines + [f"- {problem}" for problem in document["problems"][:50]]) + "\n"
