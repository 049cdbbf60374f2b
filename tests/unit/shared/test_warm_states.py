"""A warm spare's states (shared/warm.py) against a fake reader: each wait folds the committed records the broker hands
over after each state's end, quarantines what the fold refuses (never folded, the offset kept), keeps the input
position the last folded record carries, and the next wait goes on where it ended; a wait cut short by the go folds
nothing; a taken state is handed over once. Folding as the records come gives the state a fold of the whole tail
gives."""

from __future__ import annotations

import asyncio

from aiokafka import TopicPartition
from hypothesis import given, settings
from hypothesis import strategies as st

from shared import snapshots
from shared.input_position import POSITION_HEADER
from shared.warm import WarmStates
from tests.support.snapshot_log import LogRecord

TOPIC = "t-wallet.events"


class FakeReader:
    """An assigned read_committed reader over fixed partitions whose visible end (the last stable offset) moves when
    told; a fetch hands over a few records a partition, and waits for ever when there are none."""

    def __init__(self, logs: dict[int, list[LogRecord]]) -> None:
        self.logs, self.ends = logs, {p: 0 for p in logs}
        self.positions: dict[TopicPartition, int] = {}

    async def end_offsets(self, tps):
        return {tp: self.ends[tp.partition] for tp in tps}

    async def beginning_offsets(self, tps):
        return {tp: 0 for tp in tps}

    def seek(self, tp, offset):
        self.positions[tp] = offset

    async def getmany(self, *tps, timeout_ms=0, max_records=None):
        out = {}
        for tp in tps:
            at = self.positions[tp]
            records = self.logs[tp.partition][at : min(at + 3, self.ends[tp.partition])]  # a few, as a fetch would
            self.positions[tp] = at + len(records)
            if records:
                out[tp] = records
        if not out:
            await asyncio.Event().wait()  # a long fetch with nothing to hand over: only the go ends it here
        return out

    def caught_up(self) -> bool:
        return all(self.positions[tp] >= self.ends[tp.partition] for tp in self.positions)

    async def position(self, tp):
        return self.positions[tp]


def _record(partition: int, offset: int, value: int, position: int | None) -> LogRecord:
    headers = [(POSITION_HEADER, str(position).encode())] if position is not None else []
    return LogRecord(b"k", str(value).encode(), headers, offset, partition)


def _fold(state: list[int], record) -> str | None:
    value = int(record.value)
    if value < 0:
        return "not the writer's"
    state.append(value)
    return None


def _states(logs: dict[int, list[LogRecord]], reader: FakeReader) -> WarmStates:
    warm = WarmStates("unused", "wallet", TOPIC, restore=None, fold=_fold)
    for partition in logs:
        warm.states[partition] = snapshots.Restoration([], None, 0, (), None, 0, snapshots.Cursor(0))
        reader.seek(TopicPartition(TOPIC, partition), 0)
    return warm


async def _follow(warm: WarmStates, reader: FakeReader, cuts: list[int]) -> int:
    """Wait after wait while the visible end moves on (never back), until every record is folded; then a wait the
    go cuts short. How many waits folded something."""
    folding, go = 0, asyncio.Event()
    for cut in cuts:
        for partition, log in reader.logs.items():
            reader.ends[partition] = max(reader.ends[partition], min(cut, len(log)))
        while not reader.caught_up():
            await warm.wait(reader, go)
            folding += 1
    steps = warm.steps
    last = asyncio.create_task(warm.wait(reader, go))
    await asyncio.sleep(0)
    go.set()
    await asyncio.wait_for(last, 5)  # a wait the go does not end fails here instead of hanging
    assert warm.steps == steps, "a wait cut short by the go folded something"
    return folding


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.integers(0, 3),
        st.lists(st.tuples(st.integers(-2, 50), st.booleans()), max_size=25),
        min_size=1,
        max_size=4,
    ),
    st.lists(st.integers(0, 25), min_size=1, max_size=6),
)
def test_states_folded_in_steps_equal_a_fold_of_the_whole_tail(histories, cuts):
    logs = {
        partition: [
            _record(partition, offset, value, offset + 100 if marked else None)
            for offset, (value, marked) in enumerate(history)
        ]
        for partition, history in histories.items()
    }
    reader = FakeReader(logs)
    warm = _states(logs, reader)
    assert asyncio.run(_follow(warm, reader, [*cuts, 10**6])) == warm.steps
    for partition, log in logs.items():
        state = warm.states[partition]
        values = [int(r.value) for r in log]
        positions = [
            offset + 100 for offset, (value, marked) in enumerate(histories[partition]) if marked and value >= 0
        ]
        assert state.state == [v for v in values if v >= 0]
        assert state.quarantined == tuple(r.offset for r in log if int(r.value) < 0)
        assert state.folded == sum(1 for v in values if v >= 0)
        assert state.input_next == (positions[-1] if positions else None)
        assert state.events_end == len(log)
    taken = next(iter(logs))
    assert warm.take(taken) is not None and warm.take(taken) is None


def test_a_wait_cancelled_with_its_follower_leaves_no_fetch_behind():
    logs = {0: [_record(0, 0, 1, None)]}
    reader = FakeReader(logs)  # nothing visible yet: the fetch waits
    warm = _states(logs, reader)

    async def scenario() -> set:
        waiting = asyncio.create_task(warm.wait(reader, asyncio.Event()))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.wait_for(asyncio.gather(waiting, return_exceptions=True), 5)
        await asyncio.sleep(0)
        return asyncio.all_tasks() - {asyncio.current_task()}

    assert asyncio.run(scenario()) == set()
    assert warm.steps == 0
