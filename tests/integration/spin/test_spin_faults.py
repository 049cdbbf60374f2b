"""Crashes during a spin run: test-only crash hooks at every dangerous point and real SIGKILLs of spin and wallet.

Scenario: players spin from several threads (retrying a timed-out request with the same id) while the spin service
is repeatedly killed at a crash hook and restarted, and the spin and wallet services are SIGKILLed once each. One
player is armed with Diamond Mystery seeds so claims are in flight too. Afterwards: each request id has one distinct
answer, each debit exactly one settlement or refund, and every balance equals a fresh fold of the postings.

REELSTREAM_SPIN_FAULT_SPINS sets the run size (CI default 200; `make spin-faults` runs 2,000 and records the result).
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from reelstream.client import Settled, SpinTimeout
from shared.events.spin import SeedDrawn, SpinRejected, SpinSettled, SpinVoided
from shared.events.jackpot import Contribute
from shared.events.wallet import WagerDebited, WagerRefunded, WagerSettled

from conftest import client_for, token_for
from test_spin_flow import MYSTERY_SEED

SPINS = int(os.environ.get("REELSTREAM_SPIN_FAULT_SPINS", "200"))
THREADS = 8
# fault-poor has less than a stake: every wager of it is refused and its drawn outcome voided.
PLAYERS = [f"fault-{n:02d}" for n in range(16)] + ["fault-mystery", "fault-poor"]
POOR_DEPOSIT_MINOR = 50
HOOKS_CI = ("spin.after_place", "spin.after_claim")
HOOKS_FULL = (
    "spin.after_place",
    "spin.after_debit",
    "spin.after_seed_persisted",
    "spin.after_claim",
    "spin.after_settlement",
    "spin.before_commit",
)
RESULT_PATH = os.environ.get("REELSTREAM_SPIN_FAULT_RESULT")


@pytest.fixture(scope="module")
def platform(platform_factory):
    return platform_factory(REELSTREAM_TEST_SEEDS=f"fault-mystery={','.join([MYSTERY_SEED] * 40)}")


def _spin_until_answered(client, player: str, request_id: uuid.UUID, deadline: float):
    while time.monotonic() < deadline:
        try:
            return client.spin(
                player, "rising-joker", 100, "EUR", token_for(player), request_id=request_id, timeout_s=15
            )
        except SpinTimeout:
            continue  # the platform is restarting: the same id again is safe
    return None


class Load:
    """Spins keep coming until the chaos is over and at least SPINS requests were made."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.issued: list[tuple[str, uuid.UUID]] = []
        self.chaos_done = threading.Event()

    def next(self) -> tuple[str, uuid.UUID] | None:
        with self.lock:
            if self.chaos_done.is_set() and len(self.issued) >= SPINS:
                return None
            item = (PLAYERS[len(self.issued) % len(PLAYERS)], uuid.uuid4())
            self.issued.append(item)
            return item


def _players_spin(client, load: Load, answers: dict, deadline: float) -> None:
    while time.monotonic() < deadline and (item := load.next()) is not None:
        player, request_id = item
        answers[request_id] = _spin_until_answered(client, player, request_id, deadline)


def _chaos(platform, hooks: tuple[str, ...], faults: list, load: Load) -> None:
    """Arm one crash hook per spin restart (it kills the process at its 3rd hit); then SIGKILL spin and wallet."""
    try:
        for hook in hooks:
            platform.services["spin"].stop()
            spin = platform.start("spin", REELSTREAM_CRASH_AT=f"{hook}:3")
            faults.append({"fault": hook, "exit_code": spin.wait_exit(300)})
            platform.start("spin").wait_ready(120)
        for name in ("spin", "wallet"):
            time.sleep(2.0)  # let spins be in flight at the kill
            faults.append({"fault": f"SIGKILL {name}", "exit_code": platform.services[name].kill()})
            platform.start(name).wait_ready(120)
    finally:
        load.chaos_done.set()


@pytest.mark.timeout(1200)
def test_crashes_at_every_dangerous_point_leave_one_answer_per_request_and_exact_balances(platform):
    client = client_for(platform)
    for player in PLAYERS:
        client.deposit(player, POOR_DEPOSIT_MINOR if player == "fault-poor" else 10_000_000, "EUR")
    load = Load()
    answers: dict[uuid.UUID, object] = {}
    faults: list[dict] = []
    started = time.monotonic()
    deadline = started + 900
    chaos = threading.Thread(
        target=_chaos, args=(platform, HOOKS_FULL if SPINS >= 2000 else HOOKS_CI, faults, load), daemon=True
    )
    chaos.start()
    workers = [
        threading.Thread(target=_players_spin, args=(client, load, answers, deadline), daemon=True)
        for _ in range(THREADS)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    chaos.join(timeout=5)
    client.close()
    request_ids = [request_id for _, request_id in load.issued]
    elapsed_s = time.monotonic() - started
    assert all(answers.get(request_id) is not None for request_id in request_ids), "a request was never answered"
    summary = _check_history(platform, set(request_ids))
    summary.update(
        spins=SPINS,
        elapsed_s=round(elapsed_s, 1),
        faults=faults,
        settled=sum(isinstance(a, Settled) for a in answers.values()),
    )
    if RESULT_PATH:
        Path(RESULT_PATH).write_text(json.dumps(summary, indent=2) + "\n")
    assert summary["voided"] > 0, "fault-poor's wagers were refused, so some outcomes were voided"
    assert [f["fault"] for f in faults][-2:] == ["SIGKILL spin", "SIGKILL wallet"], faults
    assert all(f["exit_code"] in (137, -9) for f in faults), faults


def _check_history(platform, request_ids: set[uuid.UUID]) -> dict:
    spin_answers: dict[uuid.UUID, set] = defaultdict(set)
    settled: set[uuid.UUID] = set()
    for event in platform.read_all("spin.events"):
        if isinstance(event.data, (SpinSettled, SpinRejected)) and event.data.request_id in request_ids:
            spin_answers[event.data.request_id].add(event.id)
            if isinstance(event.data, SpinSettled):
                settled.add(event.data.request_id)
    assert set(spin_answers) == request_ids
    assert all(len(ids) == 1 for ids in spin_answers.values()), "a request got two distinct answers"
    seeds: dict[uuid.UUID, set] = defaultdict(set)
    voided: set[uuid.UUID] = set()
    for event in platform.read_all("spin.journal"):
        if isinstance(event.data, SeedDrawn):
            seeds[event.data.request_id].add(event.data.seed)
        elif isinstance(event.data, SpinVoided):
            voided.add(event.data.request_id)
    assert all(len(found) == 1 for found in seeds.values()), "a spin was drawn with two seeds"
    assert not voided & settled, "a voided outcome was shown"
    contributed = {  # sent in the transaction of the answer (or, with a claim, of the claim)
        command.data.contribution_id
        for command in platform.read_all("jackpot.internal")
        if isinstance(command.data, Contribute)
    }
    assert not voided & contributed, "a refused wager reached a pool"
    assert settled <= contributed, "a settled spin's contribution is missing"
    wallet = platform.read_all("wallet.events")
    debits, closings = defaultdict(set), defaultdict(set)
    for event in wallet:
        if isinstance(event.data, WagerDebited):
            debits[event.data.transaction_id].add(event.id)
        elif isinstance(event.data, (WagerSettled, WagerRefunded)):
            closings[event.data.wager_id].add(event.id)
    assert all(len(ids) == 1 for ids in debits.values()), "a wager was debited twice"
    assert {wager: len(ids) for wager, ids in closings.items()} == {wager: 1 for wager in debits}
    return {
        "requests": len(request_ids),
        "voided": len(voided),
        "debits": len(debits),
        "closed": len(closings),
        "balances_checked": _balances_equal_fold_of_postings(wallet),
    }


def _balances_equal_fold_of_postings(wallet_events) -> int:
    folded: dict[tuple[str, str], int] = defaultdict(int)
    last_balance: dict[tuple[str, str], int] = {}
    seen = set()
    for event in wallet_events:  # per partition in offset order; one player lives on one partition
        postings = getattr(event.data, "postings", None)
        if postings is None or event.id in seen:
            continue
        seen.add(event.id)
        assert sum(p.amount_micro for p in postings) == 0, "postings of an event sum to zero"
        for posting in postings:
            if posting.account.startswith("player:"):
                folded[(posting.account[len("player:") :], event.data.currency)] += posting.amount_micro
        last_balance[(event.data.player_id, event.data.currency)] = event.data.balance_after_minor
    for key, balance_minor in last_balance.items():
        assert folded[key] == balance_minor * 1_000_000, key
    return len(last_balance)
