"""Two spin instances: one joins while players spin, then the first leaves (SIGTERM). Each move of partitions is a
rebalance with answers and offsets in flight (the runner commits about once a second);
afterwards every request has one distinct answer, one seed, and every debit one settlement or refund."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from reelstream.client import SpinTimeout
from reelstream.processes import spawn

from conftest import client_for, token_for
from test_spin_faults import _check_history

pytestmark = pytest.mark.integration
PLAYERS = [f"rebalance-{n:02d}" for n in range(12)]
THREADS = 6


@pytest.fixture(scope="module")
def platform(platform_factory):
    return platform_factory()


def _spin(client, player: str, deadline: float) -> tuple[uuid.UUID, object]:
    request_id = uuid.uuid4()
    while time.monotonic() < deadline:
        try:
            return request_id, client.spin(
                player, "rising-joker", 100, "EUR", token_for(player), request_id=request_id, timeout_s=15
            )
        except SpinTimeout:
            continue  # partitions are moving: the same id again is safe
    return request_id, None


@pytest.mark.timeout(600)
def test_partitions_moving_between_two_spin_instances_leave_one_answer_per_request(platform):
    client = client_for(platform)
    for player in PLAYERS:
        client.deposit(player, 10_000_000, "EUR")
    answers: dict[uuid.UUID, object] = {}
    stop = threading.Event()
    deadline = time.monotonic() + 300

    def play(index: int) -> None:
        spins = 0
        while not stop.is_set() and time.monotonic() < deadline:
            request_id, answer = _spin(client, PLAYERS[(index + spins * THREADS) % len(PLAYERS)], deadline)
            answers[request_id] = answer
            spins += 1

    workers = [threading.Thread(target=play, args=(n,), daemon=True) for n in range(THREADS)]
    for worker in workers:
        worker.start()
    second = None
    try:
        try:
            time.sleep(3)
            # Joins (its own log: wait_ready reads the ready line from it; the first instance's is in the shared one).
            second = spawn(
                "spin", env={**platform.env, "REELSTREAM_LOG_LEVEL": "INFO"}, log_dir=platform.log_dir / "second"
            )
            second.wait_ready(120)
            time.sleep(4)
            assert platform.services["spin"].stop() == 0, "the first instance stops cleanly"  # all to the second
            time.sleep(4)
        finally:
            stop.set()
            for worker in workers:
                worker.join(60)
        assert len(answers) >= 30, f"only {len(answers)} spins in the run"
        assert all(answer is not None for answer in answers.values()), "a request was never answered"
        summary = _check_history(platform, set(answers))
        assert summary["debits"] == summary["closed"] == len(answers)
        # The second instance took partitions twice: a share when it joined, the rest when the first one left.
        assert second.log_text().count("spin books rebuilt for partitions") >= 2, second.log_text()[-2000:]
    finally:
        client.close()
        if second is not None:
            second.stop()
