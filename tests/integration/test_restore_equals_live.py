"""A fresh instance restored from the topics holds exactly the state the live instance built, for each service.

Scenario: the wallet and the jackpot each run in this process on the shared loop, on fresh prefixed topics, and take
real traffic through the broker (deposits, wagers and their settlements; contributions, claims and an admin
command), some of it repeated and some of it refused. Once every command is decided and committed, a second instance
— which never saw the traffic — restores each partition from the events alone; its state must equal the live one.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import asdict
from datetime import datetime, timezone

import pytest

from shared import records
from shared.events import encode, envelope
from shared.events import jackpot as jp
from shared.events.wallet import Withdraw
from shared.kafka import producer
from shared.pools import load_pools
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL, WALLET_SNAPSHOTS, dlq_name

from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from services.wallet.adapters.runner import WalletConfig, WalletService
from tests.support.transactions import transactions_decided
from wallet.wallet_harness import wager_commands

WAIT_S = 90
DIAMOND = load_pools().network("diamond-mystery")


@pytest.fixture
def prefix(kafka_bootstrap: str):
    name = f"live-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=name)
    yield name
    delete_prefixed(kafka_bootstrap, name)


def _send(bootstrap: str, prefix: str, commands: list, *, repeat_every: int = 7) -> int:
    """Every command once onto its own topic (wallet.internal or jackpot.internal as the spin service sends them, a
    cashier's on wallet.commands), every `repeat_every`-th twice; how many records."""
    writer = producer(bootstrap, client_id="restore-it")
    sent = 0
    now = datetime.now(timezone.utc)
    for index, data in enumerate(commands):
        message = envelope(data, source="restore-it", time=now)
        for _ in range(2 if index % repeat_every == 0 else 1):
            value = encode(message)
            headers = records.headers_as_owner(data.TOPIC, "spin", message.key, value)
            writer.send(prefix + data.TOPIC, key=message.key, value=value, headers=headers)
            sent += 1
    writer.flush(30)
    writer.close(10)
    return sent


async def _run_until(service, stop: asyncio.Event, done, prefix: str) -> asyncio.Task:
    """Run the service until `done()` and every transaction it committed on the prefix's topics is visible to a
    read_committed reader."""
    task = asyncio.create_task(service.run(stop))
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not done():
        assert not task.done(), "the service stopped"
        assert asyncio.get_running_loop().time() < deadline, f"the service did not get there in {WAIT_S} s"
        await asyncio.sleep(0.1)
    await transactions_decided(service.loop.config.bootstrap, prefix)
    return task


def _book_view(book, commands_next: int | None, written) -> dict:
    """What a wallet book holds, the wallet.commands position its service recorded with it, and where each fact the
    book remembers was first written (what a repeat is read back from: its wallet.events offset, or "kept" for a
    record a snapshot kept because its batch had not committed when it was imaged). Left out: its snapshot counter,
    and the wallet.events position, which the live service sets past its last event and a restore past the
    partition's end (the transaction's commit marker)."""
    places = [written.repeats.where(entry.event_id) for _, entry in book.live_entries()]
    return {
        "players": book.players,
        "memory": book.memory,
        "fifo": list(book.fifo),
        "commands_offset": commands_next,
        "places": [where if isinstance(where, int) else "kept" for where in places],
    }


def same_but_kept(restored: dict, live: dict) -> bool:
    """Whether two `_book_view`s are the same, a place a snapshot kept standing for any offset."""
    places = [mine == "kept" or mine == theirs for mine, theirs in zip(restored["places"], live["places"], strict=True)]
    return {**restored, "places": None} == {**live, "places": None} and all(places)


def _service_views(service) -> dict:
    """`_book_view` of each partition a running wallet service holds."""
    return {
        partition: _book_view(book, service.commands_next[partition], service.written[partition])
        for partition, book in service.loop.states.items()
    }


def _report_view(report) -> dict:
    """`_book_view` of a restored partition."""
    return _book_view(report.state, report.commands_offset, report.held.written)


def _wallet_config(bootstrap: str, prefix: str, snapshots_topic: str | None = None) -> WalletConfig:
    """The wallet on the prefix's topics, both inputs (the cashier's and the spin's), batches of 25."""
    return WalletConfig(
        bootstrap=bootstrap,
        commands_topic=prefix + WALLET_COMMANDS,
        events_topic=prefix + WALLET_EVENTS,
        dlq_topic=prefix + dlq_name(WALLET_COMMANDS),
        group_id=prefix + "reelstream-wallet",
        snapshots_topic=snapshots_topic,
        batch_max=25,
        internal_topic=prefix + WALLET_INTERNAL,
    )


def test_a_wallet_restored_from_wallet_events_equals_the_live_one(kafka_bootstrap, prefix, tmp_path):
    config = _wallet_config(kafka_bootstrap, prefix)
    commands = wager_commands(players=12, wagers=6)
    commands += [Withdraw(transaction_id=uuid.uuid4(), player_id="it-player-0", amount_minor=10**6, currency="EUR")]
    sent = _send(kafka_bootstrap, prefix, commands)

    async def scenario():
        live, stop = WalletService(config), asyncio.Event()
        task = await _run_until(live, stop, lambda: live.stats.records >= sent and not live.loop.busy(), prefix)
        fresh = WalletService(config)
        restored = {partition: (await fresh.restore(partition)).report for partition in sorted(live.loop.states)}
        views = _service_views(live)
        stop.set()
        await task
        return views, {partition: _report_view(report) for partition, report in restored.items()}

    live_views, restored_views = asyncio.run(scenario())
    assert sum(len(view["players"]) for view in live_views.values()) == 12
    assert restored_views == live_views


def _network_view(state) -> dict:
    return {**asdict(state), "answers": {key: encode(value) for key, value in state.answers.items()}}


def jackpot_commands() -> list:
    """Contributions of two operators, a claim every 50, and one stake too large to contribute (refused)."""
    commands = []
    for index in range(150):
        stake = (10, 20, 100, 2000)[index % 4]
        commands.append(
            jp.Contribute(
                network_id=DIAMOND.network_id,
                contribution_id=uuid.uuid4(),
                game="rising-joker",
                currency="EUR",
                stake_minor=stake,
                contribution_micro=DIAMOND.wager_contribution_micro(stake),
                breakage_micro=index * 997 % 1_000_000,
                player_id=f"p-{index % 9}",
                operator_id=f"op-{index % 2}",
            )
        )
        if index % 50 == 49:
            commands.append(
                jp.Claim(
                    network_id=DIAMOND.network_id,
                    claim_id=uuid.uuid4(),
                    request_id=uuid.uuid4(),
                    player_id="p-1",
                    game="rising-joker",
                    tier="green",
                    currency="EUR",
                    stake_minor=100,
                    operator_id="op-0",
                )
            )
    commands.append(
        jp.Contribute(
            network_id=DIAMOND.network_id,
            contribution_id=uuid.uuid4(),
            game="rising-joker",
            currency="EUR",
            stake_minor=2**49,
            contribution_micro=0,
            player_id="p-x",
        )
    )
    return commands


def test_a_jackpot_restored_from_jackpot_events_equals_the_live_one(kafka_bootstrap, prefix):
    config = JackpotConfig.on_prefix(kafka_bootstrap, prefix, batch_max=40)
    commands = jackpot_commands()
    sent = _send(kafka_bootstrap, prefix, commands)

    async def scenario():
        live, stop = JackpotService(config), asyncio.Event()
        task = await _run_until(live, stop, lambda: live.stats.records >= sent and not live.loop.busy(), prefix)
        fresh = JackpotService(config)
        restored = {partition: (await fresh.restore(partition)).state for partition in sorted(live.states)}
        views = {p: {n: _network_view(s) for n, s in states.items()} for p, states in live.states.items()}
        stop.set()
        await task
        return views, {p: {n: _network_view(s) for n, s in states.items()} for p, states in restored.items()}

    live_views, restored_views = asyncio.run(scenario())
    assert any(DIAMOND.network_id in networks for networks in live_views.values())
    assert restored_views == live_views


def _restarted_decides_nothing(make, sent: int, prefix: str) -> None:
    """Run a service (`make()`) until it decided the `sent` records, stop it, start another: the new one resumes every
    input where the records (or the snapshot written at shutdown) say and decides nothing. The group's offsets are never
    committed here (REELSTREAM_GROUP_COMMIT_S an hour): resumed at them, it would decide everything again."""

    async def scenario():
        live, stop = make(), asyncio.Event()
        task = await _run_until(live, stop, lambda: live.stats.records >= sent and not live.loop.busy(), prefix)
        stop.set()
        await task
        again, stop = make(), asyncio.Event()
        task = await _run_until(again, stop, lambda: again.loop.states and not again.loop.restoring, prefix)
        await asyncio.sleep(3)  # long enough to fetch and decide anything it was positioned before
        stop.set()
        await task
        return live.stats, again.stats

    live, again = asyncio.run(scenario())
    assert live.records == sent and live.events > 0
    assert (again.records, again.events) == (0, 0), "the restarted service decided records again"


@pytest.mark.parametrize("with_snapshots", [False, True], ids=["events", "snapshot"])
def test_a_restarted_wallet_resumes_both_inputs_where_its_records_say_and_decides_nothing_again(
    kafka_bootstrap, prefix, monkeypatch, with_snapshots
):
    # Both inputs' positions travel on each transaction's last event (LoopConfig.positions_on): the cashier's
    # deposits on wallet.commands, the spin's wagers on wallet.internal.
    monkeypatch.setenv("REELSTREAM_GROUP_COMMIT_S", "3600")
    config = _wallet_config(kafka_bootstrap, prefix, prefix + WALLET_SNAPSHOTS if with_snapshots else None)
    sent = _send(kafka_bootstrap, prefix, wager_commands(players=6, wagers=4))
    _restarted_decides_nothing(lambda: WalletService(config), sent, prefix)


def test_a_restarted_jackpot_resumes_its_internal_commands_where_its_events_say_and_decides_nothing_again(
    kafka_bootstrap, prefix, monkeypatch
):
    # The spin's contributions and claims on jackpot.internal; snapshots on jackpot.snapshots (and one at shutdown).
    monkeypatch.setenv("REELSTREAM_GROUP_COMMIT_S", "3600")
    config = JackpotConfig.on_prefix(kafka_bootstrap, prefix, batch_max=40)
    sent = _send(kafka_bootstrap, prefix, jackpot_commands())
    _restarted_decides_nothing(lambda: JackpotService(config), sent, prefix)
