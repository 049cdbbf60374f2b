"""Snapshots on `<service>.snapshots`: a fresh instance (another machine for all it knows) restores from the newest
snapshot plus the tail and gets the live state; with the snapshots topic deleted it still does, folding from offset 0;
a rebalance restores only the partitions that are new to an instance.

Scenario: the wallet and the jackpot run in this process on the shared loop, on fresh prefixed topics, with a
snapshot every few dozen events, and take the same traffic as the restore-equals-live test. Once everything is
committed, a second instance restores each partition: from a snapshot, folding only the tail after it; then the
snapshots topic is deleted and a third instance restores from the events alone.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from shared.kafka import admin_client

from services.jackpot import app as jackpot_app
from services.wallet import app as wallet_app
from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from services.wallet.adapters.runner import WalletConfig, WalletService
from tests.support.transactions import transactions_decided
from test_restore_equals_live import _network_view, _report_view, _run_until, _send, _service_views, jackpot_commands
from test_restore_equals_live import same_but_kept
from wallet.wallet_harness import wager_commands

WAIT_S = 60


def _delete_topic(bootstrap: str, topic: str) -> None:
    """Delete the topic and wait until no broker lists it (a deletion propagates asynchronously: a restore right after
    the call could still read the old snapshots)."""
    admin = admin_client(bootstrap)
    try:
        admin.delete_topics([topic])
        deadline = time.monotonic() + WAIT_S
        while topic in admin.list_topics():
            assert time.monotonic() < deadline, f"{topic} still listed {WAIT_S} s after its deletion"
            time.sleep(0.2)
    finally:
        admin.close()


def _env(bootstrap: str, prefix: str) -> dict[str, str]:
    return {"KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix}


def _wallet_config(bootstrap: str, prefix: str) -> WalletConfig:
    return replace(wallet_app.live_config(_env(bootstrap, prefix)), batch_max=20, snapshot_every_records=30)


def _networks_view(states_by_partition) -> dict:
    """`_network_view` of every network of every partition."""
    return {p: {n: _network_view(s) for n, s in states.items()} for p, states in states_by_partition.items()}


def _jackpot_config(bootstrap: str, prefix: str, **extra) -> JackpotConfig:
    config = jackpot_app.live_config(_env(bootstrap, prefix))
    return replace(config, batch_max=10, snapshot_every_events=4, **extra)


def _live_then_restored(bootstrap: str, prefix: str, config, commands: list, service_of, views_of, live_views=None):
    """Run the service until every command is committed; then restore each of its partitions in a fresh instance,
    from the snapshots topic, and again once the topic is deleted. The live stats, the live views (`live_views` of the
    service, else `views_of` its states) and both reports."""

    async def restore_all(partitions) -> dict:
        fresh = service_of(config)
        return {partition: (await fresh.restore(partition)).report for partition in partitions}

    async def scenario():
        live, stop = service_of(config), asyncio.Event()
        task = await _run_until(live, stop, lambda: live.stats.records >= sent and not live.loop.busy(), prefix)
        views = live_views(live) if live_views else views_of(live.loop.states)
        from_snapshots = await restore_all(sorted(views))
        stop.set()
        await task
        _delete_topic(bootstrap, config.snapshots_topic)
        from_events = await restore_all(sorted(views))
        return live.stats, views, from_snapshots, from_events

    sent = _send(bootstrap, prefix, commands)
    return asyncio.run(scenario())


def test_a_wallet_restored_from_its_snapshots_topic_or_without_it_equals_the_live_one(kafka_bootstrap, fresh_prefix):
    def views_of(reports) -> dict:
        return {partition: _report_view(report) for partition, report in reports.items()}

    stats, live_views, from_snapshots, from_events = _live_then_restored(
        kafka_bootstrap,
        fresh_prefix,
        _wallet_config(kafka_bootstrap, fresh_prefix),
        wager_commands(players=12, wagers=6),
        WalletService,
        views_of,
        live_views=_service_views,
    )
    assert stats.snapshots_written >= 3
    snapshot_views = views_of(from_snapshots)
    assert snapshot_views.keys() == live_views.keys()
    assert all(same_but_kept(snapshot_views[p], live_views[p]) for p in live_views)
    assert views_of(from_events) == live_views
    used = [r for r in from_snapshots.values() if r.snapshot_offset is not None]
    assert used, "no partition restored from a snapshot"
    assert all(r.folded < r.events_end for r in used), "a restore from a snapshot folded only the tail"
    assert all(r.snapshot_offset is None and r.cursor is None for r in from_events.values())
    total_events = sum(r.events_end for r in from_events.values())
    assert sum(r.folded for r in from_snapshots.values()) < sum(r.folded for r in from_events.values()) <= total_events


def test_a_jackpot_restored_from_its_snapshots_topic_or_without_it_equals_the_live_one(kafka_bootstrap, fresh_prefix):
    stats, live_views, from_snapshots, from_events = _live_then_restored(
        kafka_bootstrap,
        fresh_prefix,
        _jackpot_config(kafka_bootstrap, fresh_prefix),
        jackpot_commands(),
        JackpotService,
        _networks_view,
    )
    assert stats.snapshots_written >= 3
    assert _networks_view({p: r.state for p, r in from_snapshots.items()}) == live_views
    assert _networks_view({p: r.state for p, r in from_events.items()}) == live_views
    used = [r for r in from_snapshots.values() if r.snapshot_offset is not None]
    assert used, "no partition restored from a snapshot"
    assert sum(r.folded for r in from_snapshots.values()) < sum(r.folded for r in from_events.values())
    assert all(r.snapshot_offset is None and r.cursor is None for r in from_events.values())


def test_a_rebalance_restores_only_the_partitions_new_to_an_instance(kafka_bootstrap, fresh_prefix):
    # Two jackpot instances in one group over the two network partitions: the first takes both (2 restores); when the
    # second joins, the first keeps one partition without restoring it again and the second restores the other.
    config = _jackpot_config(kafka_bootstrap, fresh_prefix, session_timeout_ms=6000)

    async def until(condition) -> None:
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while not condition():
            assert asyncio.get_running_loop().time() < deadline, "the group did not settle in time"
            await asyncio.sleep(0.1)

    async def scenario():
        first, second = JackpotService(config), JackpotService(config)
        stop_first, stop_second = asyncio.Event(), asyncio.Event()
        first_task = asyncio.create_task(first.run(stop_first))
        await until(lambda: len(first.states) == 2 and not first.loop.restoring)
        second_task = asyncio.create_task(second.run(stop_second))
        await until(lambda: len(first.states) == 1 and len(second.states) == 1 and not second.loop.restoring)
        counts = (first.stats.restores, second.stats.restores)
        stop_second.set()
        stop_first.set()
        await asyncio.gather(first_task, second_task)
        return counts

    assert asyncio.run(scenario()) == (2, 1)


async def _followed_through(
    bootstrap: str, prefix: str, live, commands: list, warm
) -> tuple[asyncio.Task, asyncio.Event]:
    """The live service through `commands` while a spare's warm states (`warm`, shared/warm.py) follow: restored once
    the live one has worked through the first half, kept up through the second, and stepped at least once after the
    traffic's end, then stopped. Returns the live service's task and its stop: it is still running."""
    half, stop = len(commands) // 2, asyncio.Event()
    first = _send(bootstrap, prefix, commands[:half])
    task = await _run_until(live, stop, lambda: live.stats.records >= first and not live.loop.busy(), prefix)
    stop_warm = asyncio.Event()
    following = asyncio.create_task(warm.follow(stop_warm))
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while warm.steps < 2:
        assert not following.done(), "the warm states stopped"
        assert asyncio.get_running_loop().time() < deadline, "the warm states did not step"
        await asyncio.sleep(0.1)
    sent = first + _send(bootstrap, prefix, commands[half:])
    while live.stats.records < sent or live.loop.busy():
        assert not task.done(), "the live service stopped"
        assert asyncio.get_running_loop().time() < deadline + WAIT_S, "the live service did not get there in time"
        await asyncio.sleep(0.1)
    await transactions_decided(bootstrap, prefix)
    steps_before = warm.steps
    while warm.steps < steps_before + 2:  # at least one step after the traffic's end (and some during it)
        await asyncio.sleep(0.1)
    stop_warm.set()
    await following
    return task, stop


def test_a_wallet_spares_warm_books_taken_over_equal_the_live_ones(kafka_bootstrap, fresh_prefix):
    # A spare (shared/warm.py) restores every partition while the live wallet works through the first half of the
    # traffic, then keeps its books up while the second half arrives; once the live one is done, a takeover from
    # those books (each folded on to the end) equals the live books, and no partition read a snapshot to get there.
    from services.wallet.adapters.restore import warm_states

    config = _wallet_config(kafka_bootstrap, fresh_prefix)
    commands = wager_commands(players=12, wagers=6)

    async def scenario():
        live = WalletService(config)
        books = warm_states(config.bootstrap, config.events_topic, config.snapshots_topic)
        task, stop = await _followed_through(kafka_bootstrap, fresh_prefix, live, commands, books)
        views = _service_views(live)
        caught_up = all(books.states[p].events_end >= end for p, end in live.events_next.items())
        assert caught_up, "the steps did not keep the warm books up with the traffic"
        taker = WalletService(config, warm=books)
        reports = {partition: (await taker.restore(partition)).report for partition in sorted(views)}
        stop.set()
        await task
        return views, reports

    live_views, reports = asyncio.run(scenario())
    assert all(report.warm for report in reports.values()), "a takeover did not use its warm book"
    taken = {p: _report_view(r) for p, r in reports.items()}
    assert taken.keys() == live_views.keys()
    assert all(same_but_kept(taken[p], live_views[p]) for p in live_views)
    assert sum(len(view["players"]) for view in live_views.values()) == 12


def test_a_jackpot_spares_warm_networks_taken_over_equal_the_live_ones(kafka_bootstrap, fresh_prefix):
    # As the wallet's above: a spare restores both network partitions during the first half of the traffic, keeps them
    # up through the second, and a takeover from them (each folded on to the end) equals the live networks.
    from services.jackpot.adapters.restore import warm_states
    from shared.pools import load_pools

    config = _jackpot_config(kafka_bootstrap, fresh_prefix)
    commands = jackpot_commands()

    async def scenario():
        live = JackpotService(config)
        networks = warm_states(config.bootstrap, config.events_topic, config.snapshots_topic, load_pools())
        task, stop = await _followed_through(kafka_bootstrap, fresh_prefix, live, commands, networks)
        live_views = _networks_view(dict(live.states))
        taker = JackpotService(config, warm=networks)
        restored = {partition: await taker.restore(partition) for partition in sorted(live_views)}
        stop.set()
        await task
        return live_views, restored

    live_views, restored = asyncio.run(scenario())
    assert all(item.report.warm for item in restored.values()), "a takeover did not use its warm networks"
    assert _networks_view({p: item.state for p, item in restored.items()}) == live_views
    assert any(live_views.values()), "the traffic reached a network"
