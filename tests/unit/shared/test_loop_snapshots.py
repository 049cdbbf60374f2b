"""The loop's snapshot hook against a recording fake producer: the image is taken right after the batch it reflects is
decided, that batch commits without waiting for it, and the partition's first transaction after the image's bytes are
in carries it, after that transaction's events are acknowledged and before its commit, naming the offset after the
reflected batch's last event (or, without events, where the partition's committed events ended then); the two slots
are written in turn; a partition without a cursor (no snapshots topic at its restore) is never asked for an image; and
at shutdown each changed partition gets one more snapshot, alone in a transaction. A rebalance restores only the
partitions new to the instance; kept ones keep their state, producer and cursor.
"""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import TopicPartition

from shared import snapshots
from shared.input_position import Output
from shared.loop import LoopConfig, Stateless, TransactionalLoop
from shared.topics import WALLET_SNAPSHOTS
from test_loop_hooks import RecordingProducer
from tests.support.snapshot_log import LogRecord

SNAPSHOTS = "t-" + WALLET_SNAPSHOTS
CONFIG = LoopConfig(
    bootstrap="unused",
    commands_topic="t-wallet.commands",
    events_topic="t-wallet.events",
    dlq_topic="t-wallet.commands.dlq",
    group_id="g",
    service="wallet",
    snapshots_topic=SNAPSHOTS,
)


class KeptProducer(RecordingProducer):
    """Also keeps what went to the snapshots topic, as a partition of it would hand it back."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshot_records: list[LogRecord] = []

    async def send(self, topic, value, key=None, headers=None, partition=None):
        if topic == SNAPSHOTS:
            self.snapshot_records.append(LogRecord(key, value, list(headers), len(self.snapshot_records), partition))
        return await super().send(topic, value, key=key, headers=headers, partition=partition)


class Service(Stateless[dict]):
    """Hands over an image of its state whenever asked (`due`), and records how it was asked."""

    def __init__(self, due: bool = True) -> None:
        self.due, self.asked = due, []

    def snapshot_image(self, partition: int, state: dict, force: bool = False) -> snapshots.Image | None:
        self.asked.append((partition, force))
        return snapshots.Image(repr(sorted(state.items())).encode(), 1) if self.due or force else None


def _loop(service: Service, cursor: snapshots.Cursor | None = snapshots.Cursor(events_next=5)):
    loop, producer = TransactionalLoop(CONFIG, service), KeptProducer()
    loop.states[2], loop.producers[2] = {"n": 1}, producer
    loop._snapshots.track(2, None if cursor is None else snapshots.Cursor(cursor.events_next))
    return loop, producer


def _batch(loop, outputs: list[Output], next_offset: int, image: bool = True) -> None:
    """One batch of partition 2 decided (its image taken, when `image` and the service gives one) and committed; then
    the image's bytes are awaited, so the partition's next transaction carries it."""
    taken = loop._snapshots.image(2, loop.states[2]) if image else None
    offsets = {TopicPartition(CONFIG.commands_topic, 2): next_offset}
    asyncio.run(loop._commit(None, 2, offsets, outputs, 0.0, taken))
    if taken is not None:
        taken.packed.result(timeout=30)


def _read(producer: KeptProducer) -> list[snapshots.Snapshot]:
    collector = snapshots.Collector(WALLET_SNAPSHOTS, 2)
    for record in producer.snapshot_records:
        collector.add(record)
    return collector.newest_first()


def _event(value: bytes) -> Output:
    return Output(False, b"p-1", value, [])


def test_a_batch_commits_without_its_image_and_the_next_transaction_carries_it_naming_that_batchs_positions():
    loop, producer = _loop(Service())
    _batch(loop, [_event(b"e1"), _event(b"e2"), Output(True, b"p-1", b"refused", [])], next_offset=11)
    assert producer.snapshot_records == [], "the batch waited for its own image"
    e2_offset = next(i for i, step in enumerate(producer.log) if step == ("ack", b"e2")) + 1
    _batch(loop, [_event(b"e3")], next_offset=12, image=False)
    kinds = [(step[0], step[1]) if step[0] == "send" else step[:1] for step in producer.log]
    second = len(kinds) - 1 - kinds[::-1].index(("begin",))
    first_snapshot = kinds.index(("send", SNAPSHOTS))
    assert second < first_snapshot and kinds[-1] == ("commit",), "not in the next transaction"
    e3_ack = producer.log.index(("ack", b"e3"))
    assert e3_ack < first_snapshot, "the snapshot was sent before the transaction's events were acknowledged"
    [written] = _read(producer)
    assert (written.input_next, written.output_next, written.slot) == (11, e2_offset + 1, 0)
    assert written.state == repr([("n", 1)]).encode()
    assert loop.stats.snapshots_written == 1


def test_without_events_a_snapshot_names_where_the_committed_events_ended_and_the_slots_alternate():
    loop, producer = _loop(Service())
    _batch(loop, [_event(b"e1")], next_offset=3)
    after_first = loop._snapshots.cursors[2].events_next
    _batch(loop, [Output(True, b"p-1", b"refused", [])], next_offset=4)  # carries the first image, takes a second
    _batch(loop, [Output(True, b"p-1", b"refused", [])], next_offset=5, image=False)  # carries the second
    newest, older = _read(producer)
    assert (newest.slot, older.slot) == (1, 0)
    assert (older.input_next, older.output_next) == (3, after_first)
    assert (newest.input_next, newest.output_next) == (4, after_first)
    assert loop._snapshots.cursors[2].slot == 0


def test_an_image_whose_encoding_failed_is_dropped_and_the_partition_goes_on():
    class Failing(Service):
        def snapshot_image(self, partition: int, state: dict, force: bool = False) -> snapshots.Image | None:
            def broken() -> bytes:
                raise ValueError("no image")

            return snapshots.Image(broken, 1)

    loop, producer = _loop(Failing())
    taken = loop._snapshots.image(2, loop.states[2], fork=True)
    asyncio.run(loop._commit(None, 2, {TopicPartition(CONFIG.commands_topic, 2): 3}, [_event(b"e1")], 0.0, taken))
    with pytest.raises(Exception):
        taken.packed.result(timeout=30)
    _batch(loop, [_event(b"e2")], next_offset=4, image=False)
    assert producer.snapshot_records == [] and producer.log[-1] == ("commit",)
    assert loop._snapshots.held == {}


def test_a_partition_restored_without_a_snapshots_topic_is_never_asked_for_an_image():
    service = Service()
    loop, producer = _loop(service, cursor=None)
    _batch(loop, [_event(b"e1")], next_offset=3)
    assert service.asked == [] and producer.snapshot_records == []


def test_at_shutdown_a_changed_partition_gets_one_more_snapshot_alone_in_a_transaction():
    service = Service(due=False)
    loop, producer = _loop(service)
    _batch(loop, [_event(b"e1")], next_offset=3)
    assert producer.snapshot_records == []
    producer.log.clear()
    assert asyncio.run(loop._snapshots.final(loop.states, loop.producers)) == 1
    assert service.asked[-1] == (2, True)
    sends = {step[1] for step in producer.log if step[0] == "send"}
    assert sends == {SNAPSHOTS} and producer.log[0] == ("begin",) and producer.log[-1] == ("commit",)
    [written] = _read(producer)
    assert (written.input_next, written.output_next) == (3, loop._snapshots.cursors[2].events_next)


def test_a_loop_with_extra_inputs_refuses_a_snapshots_topic():
    from dataclasses import replace

    with pytest.raises(ValueError, match="extra inputs"):
        TransactionalLoop(replace(CONFIG, extra_inputs=("t-wallet.other",)), Service())


class FakeConsumer:
    def __init__(self) -> None:
        self.seeks: list[tuple[TopicPartition, int]] = []

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.seeks.append((tp, offset))


class Stopping:
    def __init__(self) -> None:
        self.stopped = False

    async def stop(self) -> None:
        self.stopped = True


def test_a_rebalance_keeps_the_state_of_kept_partitions_and_restores_only_new_ones():
    # An eager rebalance revokes partitions 1 and 2, then assigns 2 and 3: 1 is released (its producer stopped), 2
    # keeps its state and producer and resumes at its next offset, only 3 is restored.
    loop = TransactionalLoop(CONFIG, Service())
    scheduled: list[list[int]] = []
    loop._schedule = scheduled.append
    loop._consumer = FakeConsumer()
    producers = {1: Stopping(), 2: Stopping()}
    for partition in (1, 2):
        loop.states[partition], loop.producers[partition] = {"p": partition}, producers[partition]
        loop._snapshots.track(partition, snapshots.Cursor(events_next=5))
    loop._positions.take(2, [LogRecord(b"k", b"v", [], 41, 2)])

    async def rebalance() -> None:
        await loop.on_partitions_revoked([TopicPartition(CONFIG.commands_topic, p) for p in (1, 2)])
        assert sorted(loop.states) == [1, 2], "a revoke alone released a state"
        await loop.on_partitions_assigned([TopicPartition(CONFIG.commands_topic, p) for p in (2, 3)])

    asyncio.run(rebalance())
    assert loop.states == {2: {"p": 2}} and producers[1].stopped and not producers[2].stopped
    assert sorted(loop._snapshots.cursors) == [2]
    assert loop._consumer.seeks == [(TopicPartition(CONFIG.commands_topic, 2), 42)]
    assert scheduled == [[3]]


def test_a_snapshot_names_every_inputs_position_of_the_batch_it_reflects_when_the_records_carry_them():
    # The wallet reads wallet.internal beside wallet.commands: a batch of internal records alone moves no commands
    # position, and its snapshot must still name the one of the last batch that did (None made a restore from it
    # resume at the group's older offset), and the internal topic's beside it.
    from dataclasses import replace

    internal = "t-wallet.internal"
    config = replace(CONFIG, extra_inputs=(internal,), positions_on=(CONFIG.events_topic,))
    loop, producer = TransactionalLoop(config, Service()), KeptProducer()
    loop.states[2], loop.producers[2] = {"n": 1}, producer
    loop._snapshots.track(2, snapshots.Cursor(events_next=5))
    batches = ({TopicPartition(config.commands_topic, 2): 3}, {TopicPartition(internal, 2): 7}, {})
    carried = ({"wallet.commands": 3}, {"wallet.commands": 3, "wallet.internal": 7}, {"wallet.internal": 8})
    for number, offsets in enumerate(batches):
        image = loop._snapshots.image(2, loop.states[2]) if number < 2 else None
        work = loop._commit(
            None, 2, offsets or {TopicPartition(internal, 2): 8}, [_event(b"e")], 0.0, image, carried[number]
        )
        asyncio.run(work)
        if image is not None:
            image.packed.result(timeout=30)
    newest, older = _read(producer)
    assert (older.input_next, newest.input_next) == (3, 3)
    assert (older.inputs, newest.inputs) == (carried[0], carried[1])
    assert producer.offsets is None, "every batch had an event to carry the positions"


class DueOnce(Stateless[dict]):
    """Every partition due at once (partitions restored together fall due together), each until its image is taken."""

    def __init__(self, partitions: tuple[int, ...]) -> None:
        self.due, self.imaged = set(partitions), []

    def decide(self, partition: int, state: dict, records: list) -> list[Output]:
        return [_event(b"e%d" % partition)]

    def snapshot_image(self, partition: int, state: dict, force: bool = False) -> snapshots.Image | None:
        if partition not in self.due:
            return None
        self.due.discard(partition)
        self.imaged.append(partition)
        return snapshots.Image(b"%d" % partition, 1)


def test_one_poll_takes_at_most_one_snapshot_image_and_the_next_polls_take_the_others_due():
    # Before, one poll took all three images in a row: a stall of their sum for every partition's records.
    partitions = (0, 1, 2)
    service = DueOnce(partitions)
    loop = TransactionalLoop(CONFIG, service)
    for partition in partitions:
        loop.states[partition], loop.producers[partition] = {}, KeptProducer()
        loop._snapshots.track(partition, snapshots.Cursor(events_next=0))

    async def polls(count: int) -> list[list[int]]:
        taken = []
        for offset in range(count):
            before = len(service.imaged)
            polled = {
                TopicPartition(CONFIG.commands_topic, p): [LogRecord(b"k", b"v", [], offset, p)] for p in partitions
            }
            await loop._process(None, polled)
            await asyncio.gather(*loop._inflight.values())
            for held in loop._snapshots.held.values():  # its bytes in before the next poll, which then carries it
                await asyncio.wrap_future(held.taken.packed)
            taken.append(service.imaged[before:])
        return taken

    assert asyncio.run(polls(4)) == [[0], [1], [2], []]
    assert loop.stats.snapshots_written == 3  # each in its partition's transaction of the poll after its image


class Lazy(Stateless[dict]):
    """Gives the encoder of its state, not its bytes (as the wallet, the jackpot and the spin do)."""

    def snapshot_image(self, partition: int, state: dict, force: bool = False) -> snapshots.Image | None:
        return snapshots.Image(lambda: repr(sorted(state.items())).encode(), 1)


@pytest.mark.parametrize("fork", [True, False])
def test_a_lazy_image_is_the_state_when_it_was_taken_even_if_the_state_changes_before_it_is_sent(fork):
    loop, producer = _loop(Lazy())
    taken = loop._snapshots.image(2, loop.states[2], fork=fork)
    loop.states[2]["n"] = 99  # the loop decides the next batch while the image is encoded
    offsets = {TopicPartition(CONFIG.commands_topic, 2): 4}
    asyncio.run(loop._commit(None, 2, offsets, [_event(b"e1")], 0.0, taken))
    taken.packed.result(timeout=30)
    _batch(loop, [_event(b"e2")], next_offset=5, image=False)
    [written] = _read(producer)
    assert written.state == repr([("n", 1)]).encode()


def test_an_idle_partitions_image_goes_alone_in_a_transaction_once_its_bytes_are_in():
    loop, producer = _loop(Service())
    _batch(loop, [_event(b"e1")], next_offset=3)  # the image held, its bytes in, and no batch after it
    assert producer.snapshot_records == []
    producer.log.clear()
    asyncio.run(loop._write_held())
    sends = {step[1] for step in producer.log if step[0] == "send"}
    assert sends == {SNAPSHOTS} and producer.log[0] == ("begin",) and producer.log[-1] == ("commit",)
    [written] = _read(producer)
    assert written.input_next == 3 and loop._snapshots.held == {} and loop._snapshots.cursors[2].slot == 1
