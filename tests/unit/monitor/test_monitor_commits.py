"""The monitor commits input offsets only after every table write before them is acknowledged (faust's own buffer
flush returns after 0.1 s without a send, which lost table writes of a monitor killed under load)."""

from __future__ import annotations

import asyncio

import pytest

from services.monitor.adapters.commits import clamp_commits, drain_before_commit, hold_inputs_until_seeked


class _Table:
    def __init__(self) -> None:
        self.sent: list[asyncio.Future] = []

    def send_changelog(self, partition, key, value):
        future = asyncio.get_running_loop().create_future()
        self.sent.append(future)
        return future


class _Buffer:
    async def flush(self) -> None:  # what faust does when its sender is busy: give up, leave the writes unsent
        await asyncio.sleep(0)


def test_the_flush_waits_for_every_write_the_tables_made_however_slow_the_broker():
    async def scenario():
        tables, buffer = [_Table(), _Table()], _Buffer()
        drain_before_commit(buffer, tables)
        tables[0].send_changelog(None, b"k", b"v")
        tables[1].send_changelog(None, b"k", b"v")
        flushing = asyncio.ensure_future(buffer.flush())
        await asyncio.sleep(0.3)
        assert not flushing.done()
        tables[0].sent[0].set_result("ack")
        await asyncio.sleep(0.05)
        assert not flushing.done()
        tables[1].sent[0].set_result("ack")
        await asyncio.wait_for(flushing, 1)

    asyncio.run(scenario())


def test_a_failed_write_fails_the_flush_so_nothing_is_committed_past_it():
    async def scenario():
        table, buffer = _Table(), _Buffer()
        drain_before_commit(buffer, [table])
        table.send_changelog(None, b"k", b"v")
        table.sent[0].set_exception(OSError("broker gone"))
        with pytest.raises(RuntimeError, match="1 changelog writes failed"):
            await buffer.flush()

    asyncio.run(scenario())


def test_with_nothing_written_the_flush_returns_at_once():
    async def scenario():
        buffer = _Buffer()
        drain_before_commit(buffer, [_Table()])
        await asyncio.wait_for(buffer.flush(), 0.1)

    asyncio.run(scenario())


class _TP:
    def __init__(self, topic: str, partition: int) -> None:
        self.topic, self.partition = topic, partition


class _Consumer:
    def __init__(self) -> None:
        self.committed: list[dict] = []

    async def _commit(self, offsets) -> bool:
        self.committed.append({(tp.topic, tp.partition): offset for tp, offset in offsets.items()})
        return True


def test_faust_commits_no_partition_past_what_the_agents_applied():
    async def scenario():
        consumer, applied = _Consumer(), {("spin.events", 0): 40}
        clamp_commits(consumer, applied)
        offsets = {_TP("spin.events", 0): 90, _TP("spin.events", 1): 12}
        assert await consumer._commit(offsets) is True
        applied[("spin.events", 0)] = 95
        await consumer._commit(offsets)
        assert consumer.committed == [{("spin.events", 0): 40}, {("spin.events", 0): 90}]
        assert await consumer._commit({_TP("jackpot.events", 0): 3}) is False

    asyncio.run(scenario())


def test_recovery_suspends_flow_control_before_it_resumes_and_seeks_the_input_partitions():
    calls: list[str] = []

    class _Flow:
        def suspend(self) -> None:
            calls.append("suspend")

    class _Recovery:
        async def on_recovery_completed(self, generation_id: int = 0) -> None:
            calls.append(f"resume partitions, seek, resume flow ({generation_id})")

    class _App:
        flow_control = _Flow()

        class tables:
            recovery = _Recovery()

    hold_inputs_until_seeked(_App)
    asyncio.run(_App.tables.recovery.on_recovery_completed(7))
    assert calls == ["suspend", "resume partitions, seek, resume flow (7)"]
