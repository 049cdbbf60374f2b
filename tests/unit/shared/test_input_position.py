"""The input positions travel with the records: the last carrying record of a batch names every input's next offset,
dead letters carry none, and a record's headers give them back; records written before the positions of every input
travelled carry the commands position alone, which is still read."""

from __future__ import annotations

from types import SimpleNamespace

from shared.input_position import POSITION_HEADER, recorded_position, undecided

from shared.input_position import Output

from tests.support.reads import jackpot_dead_letter as dead_letter_record


def test_an_older_records_commands_position_is_read_back_and_a_record_without_it_records_none():
    assert recorded_position(None) is None
    assert recorded_position([("content-type", b"json")]) is None
    assert recorded_position([(POSITION_HEADER, b"4096")]) == 4096


def test_the_jackpots_last_event_carries_the_positions_and_its_dead_letters_none():
    from shared.input_position import recorded_inputs, with_inputs

    source = SimpleNamespace(
        key=b"stjernestoev", value=b"{", topic="jackpot.commands", partition=2, offset=9, headers=[]
    )
    letter = dead_letter_record(source, "UNDECODABLE", "not json")
    events = [Output(False, b"stjernestoev", value, [("content-type", b"json")]) for value in (b"a", b"b")]
    positions = {"jackpot.commands": 10, "jackpot.internal": 4}
    marked, carried = with_inputs(
        [events[0], letter, events[1], letter], positions, ("x.jackpot.events",), "x.jackpot.events"
    )
    assert carried and [recorded_inputs(out.headers) for out in marked] == [{}, {}, positions, {}]
    assert marked[2].value == b"b" and marked[2].headers[0] == ("content-type", b"json")
    assert letter.dead_letter and not events[0].dead_letter
    assert with_inputs([letter], positions, ("x.jackpot.events",), "x.jackpot.events") == ([letter], False)


def offsets(*values: int) -> list:
    return [SimpleNamespace(offset=value) for value in values]


def test_records_before_the_position_a_partition_resumed_at_are_not_decided_again():
    assert undecided(offsets(4, 5, 6), 10) == []
    assert [r.offset for r in undecided(offsets(8, 9, 10, 11), 10)] == [10, 11]
    assert [r.offset for r in undecided(offsets(12, 14), 10)] == [12, 14], "gaps (transaction markers) are kept"


def test_a_partition_without_a_known_position_decides_what_it_is_given():
    assert [r.offset for r in undecided(offsets(0, 1), None)] == [0, 1]


class FakeConsumer:
    def __init__(self, committed: int | None) -> None:
        self.group_offset, self.sought, self.commits = committed, [], []

    async def committed(self, tp):
        return self.group_offset

    def seek(self, tp, offset: int) -> None:
        self.sought.append((tp.partition, offset))

    async def commit(self, positions) -> None:
        self.commits.append({tp.partition: offset for tp, offset in positions.items()})


def test_a_resumed_partition_is_sought_to_the_further_of_the_recorded_position_and_the_groups_then_decided_from_there():
    import asyncio

    from shared.input_position import InputPositions

    positions, consumer = InputPositions("t.commands"), FakeConsumer(committed=13)
    asyncio.run(positions.resume(consumer, 2, {"t.commands": 10}))
    asyncio.run(positions.resume(consumer, 3, {}))
    assert consumer.sought == [(2, 13)], "nothing recorded: no seek, the group's offset applies"
    assert [r.offset for r in positions.take(2, offsets(11, 12, 13, 14))] == [13, 14]
    assert positions.take(2, offsets(14)) == [], "taken once"
    assert [r.offset for r in positions.take(3, offsets(0, 1))] == [0, 1]
    positions.forget(2)
    assert [r.offset for r in positions.take(2, offsets(14))] == [14]


def test_the_group_learns_committed_positions_from_a_later_transaction_of_the_partition_once_its_interval_passed():
    from aiokafka import TopicPartition

    from shared.input_position import InputPositions

    commands, answers = TopicPartition("t.commands", 0), TopicPartition("t.answers", 0)
    positions = InputPositions("t.commands", group_interval_s=5.0)
    start = positions._started_at  # noqa: SLF001 - the clock the interval starts from
    positions.committed(0, 5)
    positions.committed(0, 3, "t.answers")
    positions.committed(1, 7)
    assert positions.for_group(0, {commands: 9}, start + 4.9) == {}, "not due yet: the batch's transaction tells none"
    assert positions.idle_due({0, 1}, start + 4.9) == []
    sent = positions.for_group(0, {commands: 9}, start + 5.0)
    assert sent == {commands: 9, answers: 3}, "the batch's own offsets over the positions still to tell"
    positions.committed(0, 9)  # that batch committed, then what it told the group
    positions.group_committed(0, sent, start + 5.0)
    assert positions.for_group(0, {commands: 12}, start + 9.9) == {}, "the interval starts again"
    assert positions.idle_due({0, 1}, start + 9.9) == [1], "partition 1 has positions to tell and no batch coming"
    assert positions.idle_due({0}, start + 10.0) == [], "partition 0 told everything; 1 is not owned"
    assert positions.for_group(1, {}, start + 10.0) == {TopicPartition("t.commands", 1): 7}


def test_a_batch_whose_positions_travel_on_no_record_commits_its_offsets_to_the_group_whatever_the_interval():
    from aiokafka import TopicPartition

    from shared.input_position import InputPositions

    commands = TopicPartition("t.commands", 0)
    positions = InputPositions("t.commands", group_interval_s=3600.0)
    positions.committed(0, 5)
    now = positions._started_at  # noqa: SLF001
    assert positions.for_group(0, {commands: 8}, now, due_only=False) == {commands: 8}
    positions.committed(0, 8)
    positions.group_committed(0, {commands: 8}, now)
    assert positions.idle_due({0}, now + 7200) == [], "nothing left to tell"


def test_a_told_position_overtaken_by_a_later_commit_is_still_told_and_a_released_partition_tells_nothing():
    from aiokafka import TopicPartition

    from shared.input_position import InputPositions

    commands = TopicPartition("t.commands", 0)
    positions = InputPositions("t.commands", group_interval_s=0.0)
    now = positions._started_at  # noqa: SLF001
    positions.committed(0, 5)
    sent = positions.for_group(0, {}, now)
    positions.committed(0, 9)  # a later transaction committed before the first one's told offsets were recorded
    positions.group_committed(0, sent, now)
    assert positions.for_group(0, {}, now) == {commands: 9}
    positions.forget(0)
    assert positions.idle_due({0}, now + 1) == [] and positions.for_group(0, {}, now + 1) == {}


def out_to(topic: str, value: bytes, dead_letter: bool = False) -> Output:
    return Output(dead_letter, b"p", value, [("content-type", b"json")], topic=topic)


def test_every_inputs_position_rides_on_the_last_record_of_the_first_carrying_topic_the_batch_writes():
    from shared.input_position import recorded_inputs, with_inputs

    positions = {"spin.requests": 12, "wallet.events": 7, "spin.jackpot-answers": 0}
    batch = [out_to("x.spin.journal", b"j1"), out_to("x.spin.journal", b"j2"), out_to("x.wallet.internal", b"w")]
    batch += [out_to("x.spin.events", b"a")]
    marked, carried = with_inputs(batch, positions, ("x.spin.journal", "x.spin.events"))
    assert carried and [recorded_inputs(out.headers) for out in marked] == [{}, positions, {}, {}]
    assert [out.value for out in marked] == [b"j1", b"j2", b"w", b"a"] and marked[1].headers[0][0] == "content-type"
    answers_only = [out_to("x.spin.events", b"a"), out_to("x.jackpot.internal", b"c")]
    marked, carried = with_inputs(answers_only, positions, ("x.spin.journal", "x.spin.events"))
    assert carried and recorded_inputs(marked[0].headers) == positions, "no journal fact: the last answer carries them"
    elsewhere = [out_to("x.wallet.internal", b"w"), out_to("x.spin.journal", b"j", dead_letter=True)]
    assert with_inputs(elsewhere, positions, ("x.spin.journal",)) == (elsewhere, False), "commit them in the txn"
    assert with_inputs(batch, {}, ("x.spin.journal",)) == (batch, False), "no position known yet"


def test_a_malformed_inputs_header_is_refused_and_none_is_empty():
    import pytest

    from shared.input_position import INPUTS_HEADER, recorded_inputs

    assert recorded_inputs(None) == {} and recorded_inputs([("content-type", b"json")]) == {}
    assert recorded_inputs([(INPUTS_HEADER, b"a.b=3;c=0")]) == {"a.b": 3, "c": 0}
    for bad in (b"a.b", b"a.b=x", b"\xff=1", b"a=-1;b=2"):
        with pytest.raises(ValueError):
            recorded_inputs([(INPUTS_HEADER, bad)])


def test_a_partition_resumed_past_its_groups_offset_tells_the_group_when_idle_and_one_at_it_tells_nothing():
    """Decided and recorded before a restart but never told to the group: with no record coming, the lag tools would
    show those records as waiting until the next one arrived (the hostile-record campaign's "spin behind")."""
    import asyncio

    from aiokafka import TopicPartition

    from shared.input_position import InputPositions

    positions, consumer = InputPositions("t.commands", group_interval_s=1.0), FakeConsumer(committed=5)
    start = positions._started_at  # noqa: SLF001 - the clock the interval starts from
    asyncio.run(positions.resume(consumer, 1, {"t.commands": 10, "t.other": 3}))
    asyncio.run(positions.resume(consumer, 2, {"t.commands": 5}))
    assert positions.idle_due({1, 2}, start + 1.0) == [1], "partition 2 resumed at the group's own offset"
    assert positions.for_group(1, {}, start + 1.0) == {TopicPartition("t.commands", 1): 10}


def test_every_input_topic_of_a_partition_resumes_at_its_own_recorded_position_and_is_taken_once():
    import asyncio

    from shared.input_position import InputPositions

    positions, consumer = InputPositions("t.commands"), FakeConsumer(committed=5)
    asyncio.run(positions.resume(consumer, 1, {"t.commands": 10, "t.other": 3}))
    assert consumer.sought == [(1, 10), (1, 5)], "each at the further of its record and the group's offset"
    assert [r.offset for r in positions.take(1, offsets(4, 5, 6), "t.other")] == [5, 6]
    assert [r.offset for r in positions.take(1, offsets(9, 10), "t.commands")] == [10]
    assert positions.known(1) == {"t.commands": 11, "t.other": 7} and positions.known(2) == {}
    positions.forget(1)
    assert positions.known(1) == {}


def test_idle_partitions_tell_the_group_in_transactions_of_their_own_and_one_told_meanwhile_sends_nothing():
    """`_tell_group`: an offsets-only transaction per idle partition with positions to tell; a partition whose
    pipelined commit told the group while an earlier partition's transaction was awaited is skipped, never sent an
    empty offsets map (aiokafka refuses one with ValueError, which stopped the wallet in the fault run)."""
    import asyncio

    from aiokafka import TopicPartition

    from shared.loop import LoopConfig, Stateless, TransactionalLoop
    from tests.unit.shared.test_loop_hooks import RecordingProducer

    class Service(Stateless[dict]):
        async def restore(self, partition: int):
            raise AssertionError

    class StrictProducer(RecordingProducer):
        def __init__(self, meanwhile=None) -> None:
            super().__init__()
            self.meanwhile, self.sent = meanwhile, []

        async def send_offsets_to_transaction(self, offsets, group_id) -> None:
            if not offsets:
                raise ValueError(offsets)
            self.sent.append(dict(offsets))
            if self.meanwhile is not None:
                self.meanwhile()
            await super().send_offsets_to_transaction(offsets, group_id)

    config = LoopConfig(
        bootstrap="unused", commands_topic="x.c", events_topic="x.e", dlq_topic="x.c.dlq", group_id="g", service="t"
    )
    loop = TransactionalLoop(config, Service())
    loop._positions.group_interval_s = 0.0  # noqa: SLF001
    first, third = TopicPartition("x.c", 0), TopicPartition("x.c", 2)

    def third_told_by_its_commit() -> None:
        loop._positions.group_committed(2, {third: 9}, 0.0)  # noqa: SLF001

    producers = {0: StrictProducer(third_told_by_its_commit), 1: StrictProducer(), 2: StrictProducer()}
    for partition, producer in producers.items():
        loop.states[partition], loop.producers[partition] = {}, producer
    loop._positions.committed(0, 5)  # noqa: SLF001
    loop._positions.committed(2, 9)  # noqa: SLF001
    asyncio.run(loop._tell_group())  # noqa: SLF001
    assert [p.sent for p in producers.values()] == [[{first: 5}], [], []]
    asyncio.run(loop._tell_group())  # noqa: SLF001
    assert [len(p.sent) for p in producers.values()] == [1, 0, 0], "nothing left to tell"
