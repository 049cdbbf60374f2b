"""A spin service restored from its topics holds exactly the books the live one built.

Scenario: the wallet and jackpot run as processes (the jackpot writes its answers to spin.jackpot-answers); the spin
runner runs in this process on the real broker. Players of both games spin (Stjernestøv players carry bonus-ring
state from spin to spin), some requests are sent twice, some are refused; the runner snapshots its books every few
records. Then the partitions' books are
rebuilt from spin.journal, spin.events and spin.jackpot-answers alone, and restored from their newest snapshot plus
the tail, and both are compared with the live books request by request, game state by game state; then the
snapshots topic is deleted and a restore folds from the beginning to the same books.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from reelstream.client import Rejected, Settled
from reelstream.processes import stop_all
from services.spin.adapters.answers import Partition
from services.spin.adapters.rebuild import rebuild_books, restoring
from services.spin.adapters.runner import SnapshotPolicy, SpinRunner
from services.spin.adapters.seeds import os_seed
from services.spin.adapters.warm import WarmBooks
from services.spin.core import evolve as fold
from services.spin.core.catalog import registry_catalog
from services.spin.core.effects import Context
from shared.config import load_settings
from shared.kafka import admin_client
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.topics import SPIN_SNAPSHOTS
from tests.support.transactions import transactions_decided

from conftest import SERVICE_ENV, Platform, client_for

WAIT_S = 90


@pytest.fixture
def half_platform(kafka_bootstrap, tmp_path):
    """Wallet and jackpot as processes on fresh topics; the spin service is the test's own."""
    prefix = f"t{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {**SERVICE_ENV, "REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    platform = Platform(kafka_bootstrap, prefix, tmp_path, env)
    for service in [platform.start(name) for name in ("wallet", "jackpot")]:
        service.wait_ready(120)
    yield platform
    stop_all(platform.services.values())
    delete_prefixed(kafka_bootstrap, prefix)


def _delete_topic(bootstrap: str, topic: str) -> None:
    """Delete the topic and wait until the cluster's metadata no longer lists it (deletion is asynchronous)."""
    admin = admin_client(bootstrap)
    try:
        admin.delete_topics([topic])
        deadline = time.monotonic() + WAIT_S
        while topic in admin.list_topics():
            assert time.monotonic() < deadline, f"{topic} still listed {WAIT_S} s after its deletion"
            time.sleep(0.2)
    finally:
        admin.close()


def _book_view(held: Partition, catalog) -> dict:
    """What a book means: every request's state machine and answer (its record as first written, which the adapter
    keeps beside the book), each player's game state and spin rate."""
    book = held.book
    records = {
        request_id: (
            record.fingerprint,
            record.accepted,
            record.seed_hex,
            record.model_version,
            record.state_before,
            held.answers.again(str(record.answer_id)) if record.answered else None,
            record.answer_code,
            record.operator_id,
            record.requested_at_ms,
            {
                claim: answer and (answer.tier, answer.amount_minor, answer.rejection_code)
                for claim, answer in record.claims.items()
            },
        )
        for request_id, record in book.records.items()
    }
    players = {key for key in book.game_states}
    games = {key: fold.game_state(book, catalog, *key) for key in sorted(players)}
    in_flight = {key: flying for key, flying in book.in_flight.items() if flying}
    accepted_at = {player: list(times) for player, times in book.accepted_at.items()}
    return {"records": records, "games": games, "in_flight": in_flight, "accepted_at": accepted_at}


def _spins(client, players: list[tuple[str, str, int, str]]) -> list:
    answers = []
    for round_ in range(4):
        for player, game, stake, currency in players:
            answers.append(client.spin(player, game, stake, currency, "any-token"))
    return answers


def test_books_rebuilt_from_the_spin_topics_equal_the_live_books(half_platform):
    settings = load_settings(half_platform.env)
    catalog = registry_catalog()
    ctx = Context(catalog=catalog, token_problem=lambda token, player, now_ms: None, draw_seed=os_seed)
    players = [(f"rj-{n}", "rising-joker", (10, 100, 2000)[n % 3], "EUR") for n in range(4)]
    players += [(f"sn-{n}", "stjernestoev", (50, 200)[n % 2], "DKK") for n in range(4)]

    async def scenario():
        runner = SpinRunner(settings, ctx, SnapshotPolicy(every_records=7, every_s=3600))
        warm, stop, stop_warm = WarmBooks(settings, catalog), asyncio.Event(), asyncio.Event()
        tasks = [asyncio.create_task(runner.run(stop))]
        try:
            await asyncio.wait_for(runner.assigned.wait(), WAIT_S)
            tasks.append(asyncio.create_task(warm.follow(stop_warm)))  # a spare's books, kept up during the play
            answers = await asyncio.to_thread(_play, half_platform, players)
            async with runner.lock:
                await runner.drain()
                live = {
                    partition: _book_view(Partition(book, runner.answers[partition]), catalog)
                    for partition, book in runner.books.items()
                }
            await transactions_decided(settings.kafka_bootstrap_servers, half_platform.prefix)
            warm_folded = sum(item.folded for item in warm.books.values())
            stop_warm.set()
            await asyncio.wait_for(tasks[1], WAIT_S)
            resumed = {
                partition: await restoring(settings, catalog).fold(partition, warm.take(partition))
                for partition in live
            }
            rebuilt = await rebuild_books(settings, catalog, sorted(live))
            restored = {partition: await restoring(settings, catalog).fold(partition) for partition in live}
            stop.set()  # the runner stops (writing its shutdown snapshots) before its snapshots topic goes
            await asyncio.wait_for(tasks[0], WAIT_S)
            await asyncio.to_thread(_delete_topic, settings.kafka_bootstrap_servers, settings.topic(SPIN_SNAPSHOTS))
            without = {partition: await restoring(settings, catalog).fold(partition) for partition in live}
            restored = {partition: (restored[partition], without[partition]) for partition in live}
            resumed = {partition: (_book_view(item.state, catalog), item.folded) for partition, item in resumed.items()}
            return (
                answers,
                live,
                {partition: _book_view(held, catalog) for partition, held in rebuilt.items()},
                restored,
                (warm.steps, warm_folded, resumed),
            )
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    answers, live, rebuilt, restored, (steps, warm_folded, resumed) = asyncio.run(scenario())
    assert sum(isinstance(answer, Settled) for answer in answers) >= len(players) * 3
    assert sum(len(view["records"]) for view in live.values()) >= len(players) * 4
    assert rebuilt == live
    assert steps > 0 and warm_folded > 0, "the warm books did not follow the play"
    assert {partition: view for partition, (view, _) in resumed.items()} == live
    assert {partition: _book_view(item.state, catalog) for partition, (item, _) in restored.items()} == live
    from_snapshots = [item for item, _ in restored.values() if item.snapshot is not None]
    assert from_snapshots, "no partition was restored from a snapshot"
    assert all(item.snapshot.positions for item in from_snapshots)
    assert all(item.folded < full.folded for item, full in restored.values() if item.snapshot is not None)
    assert {partition: _book_view(full.state, catalog) for partition, (_, full) in restored.items()} == live
    assert all(full.snapshot is None and full.cursor is None for _, full in restored.values())


def _play(platform, players) -> list:
    with client_for(platform) as client:
        for player, _, _, currency in players:
            client.deposit(player, 1_000_000, currency)
        answers = _spins(client, players)
        repeat = answers[0]
        again = client.spin(
            players[0][0], players[0][1], players[0][2], players[0][3], "any-token", request_id=repeat.request_id
        )
        assert again.request_id == repeat.request_id
        refused = client.spin(players[0][0], players[0][1], 7, players[0][3], "any-token")
        assert isinstance(refused, Rejected)
        return answers + [again, refused]
