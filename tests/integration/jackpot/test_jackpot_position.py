"""Where a restarted jackpot service reads on: the input position its committed events recorded, or the group's
offset when that is further — a batch of dead letters alone has no event to carry it and commits it in its
transaction instead. Two in-process runs on one group, the group's periodic (lag-tool) commit switched off."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timezone

import pytest

from shared import records
from shared.events import encode, envelope
from shared.events import jackpot as jp
from shared.input_position import recorded_inputs
from shared.pools import load_pools
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS, dlq_name

from services.jackpot.adapters import runner
from shared import loop
from services.jackpot.adapters.history import read_all

STJERNE = load_pools().network("stjernestoev")
WAIT_S = 60


def _contribution() -> tuple[bytes, bytes]:
    data = jp.Contribute(
        network_id=STJERNE.network_id,
        contribution_id=uuid.uuid4(),
        game="stjernestoev",
        currency="DKK",
        stake_minor=100,
        contribution_micro=STJERNE.wager_contribution_micro(100),
        player_id="p-1",
        operator_id="op-a",
    )
    message = envelope(data, source="test", time=datetime.now(timezone.utc))
    return message.key, encode(message)


@pytest.fixture
def topics(kafka_bootstrap: str):
    prefix = f"t-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    yield prefix
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


async def _until(predicate, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"{what} within {WAIT_S} s"
        await asyncio.sleep(0.05)


async def _run(config: runner.JackpotConfig, until, then=None) -> runner.Stats:
    service = runner.JackpotService(config)
    stop = asyncio.Event()
    task = asyncio.create_task(service.run(stop))
    try:
        await _until(lambda: task.done() or until(service.stats), "the run to get there")
        if then is not None:
            await asyncio.to_thread(then)
            await _until(lambda: task.done() or until(service.stats, later=True), "the run to get there")
    finally:
        stop.set()
    return await task


def test_a_restart_resumes_after_a_batch_of_dead_letters_alone_and_re_reads_nothing(
    topics, kafka_bootstrap, make_producer, monkeypatch
):
    monkeypatch.setattr(loop, "GROUP_COMMIT_INTERVAL_S", 3600.0)  # the group's offset moves only in transactions
    prefix, writer = topics, make_producer()
    commands = prefix + JACKPOT_COMMANDS
    config = runner.JackpotConfig(
        bootstrap=kafka_bootstrap,
        commands_topic=commands,
        events_topic=prefix + JACKPOT_EVENTS,
        meters_topic=prefix + JACKPOT_METERS,
        dlq_topic=prefix + dlq_name(JACKPOT_COMMANDS),
        group_id=prefix + "reelstream-jackpot",
        session_timeout_ms=6000,
    )

    def send(batch) -> None:
        items = [("jackpot.commands", key, value) for key, value in batch]
        for (_, key, value), headers in zip(items, records.stand_in_batch(items, "spin")):
            writer.send(commands, key=key, value=value, headers=headers)
        writer.flush(timeout=30)

    send([_contribution() for _ in range(10)])
    first = asyncio.run(
        _run(
            config,
            lambda stats, later=False: stats.records >= (13 if later else 10),
            then=lambda: send([(STJERNE.network_id.encode(), b'{"broken": ') for _ in range(3)]),
        )
    )
    assert (first.records, first.dead_letters) == (13, 3)
    events = read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS)
    positions = [recorded_inputs(r.headers).get(JACKPOT_COMMANDS) for r in events]
    assert [p for p in positions if p is not None] == [10], "the events recorded the position before the dead letters"

    send([_contribution()])
    second = asyncio.run(_run(config, lambda stats, later=False: stats.events >= 1))
    assert (second.records, second.dead_letters) == (1, 0), "resumed at the group's offset (13), past the recorded 10"
    assert len(read_all(kafka_bootstrap, prefix + dlq_name(JACKPOT_COMMANDS))) == 3


def test_the_group_learns_the_positions_for_lag_tools_only_inside_transactions(
    topics, kafka_bootstrap, make_producer, monkeypatch
):
    """Positions travel on the events; the group still learns them (lag tools read it), but never from a plain offset
    commit: a group that gets both kinds logs a broker warning per transactional commit ("Mixing both types of offset
    commits ... should be avoided"), and a plain commit in flight can land after a later transaction's offsets."""
    from aiokafka import AIOKafkaConsumer

    from shared.kafka import admin_client

    monkeypatch.setattr(loop, "GROUP_COMMIT_INTERVAL_S", 0.5)
    plain_commits: list = []
    commit = AIOKafkaConsumer.commit

    async def recording_commit(self, *args, **kwargs):
        plain_commits.append(args)
        return await commit(self, *args, **kwargs)

    monkeypatch.setattr(AIOKafkaConsumer, "commit", recording_commit)
    prefix, writer = topics, make_producer()
    commands = prefix + JACKPOT_COMMANDS
    group = prefix + "reelstream-jackpot"
    config = runner.JackpotConfig(
        bootstrap=kafka_bootstrap,
        commands_topic=commands,
        events_topic=prefix + JACKPOT_EVENTS,
        meters_topic=prefix + JACKPOT_METERS,
        dlq_topic=prefix + dlq_name(JACKPOT_COMMANDS),
        group_id=group,
        session_timeout_ms=6000,
    )
    batch = [_contribution() for _ in range(10)]
    items = [("jackpot.commands", key, value) for key, value in batch]
    for (_, key, value), headers in zip(items, records.stand_in_batch(items, "spin")):
        writer.send(commands, key=key, value=value, headers=headers)
    writer.flush(timeout=30)
    admin = admin_client(kafka_bootstrap)

    def group_offsets() -> dict[int, int]:
        found = admin.list_group_offsets({group: None}).get(group, {})
        return {tp.partition: meta.offset for tp, meta in found.items() if tp.topic == commands}

    async def run() -> tuple[runner.Stats, dict[int, int]]:
        service = runner.JackpotService(config)
        stop = asyncio.Event()
        task = asyncio.create_task(service.run(stop))
        seen: dict[int, int] = {}
        try:
            await _until(lambda: task.done() or service.stats.records >= 10, "the contributions decided")
            deadline = asyncio.get_running_loop().time() + WAIT_S
            while sum(seen.values()) < 10 and asyncio.get_running_loop().time() < deadline and not task.done():
                await asyncio.sleep(0.5)
                seen = await asyncio.to_thread(group_offsets)
        finally:
            stop.set()
        return await task, seen

    try:
        stats, seen = asyncio.run(run())
    finally:
        admin.close()
    assert stats.records == 10 and stats.events >= 1
    assert sum(seen.values()) == 10, f"the group learned every decided position (lag 0): {seen}"
    assert plain_commits == [], "the group's offsets moved only inside transactions"
