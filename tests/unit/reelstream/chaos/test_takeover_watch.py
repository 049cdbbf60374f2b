"""The takeover watch dates each commit at the look after it, so it states how far apart its looks were; and which
partitions had work is one read of them all, each up to its first record (a read of each whole range in turn, markers
at its end, held the watch between looks for most of a second)."""

from __future__ import annotations

import time

from kafka import TopicPartition

from reelstream.chaos import takeover
from reelstream.chaos.takeover import Committed

A, B, C = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)


class Watched:
    """A watch's view: A commits past the kill at the third look; its search for work is slow."""

    def __init__(self, slow_s: float) -> None:
        self.looks, self.slow_s = 0, slow_s

    def now(self):
        self.looks += 1
        return {A: 11 if self.looks >= 3 else 10, B: 5}

    def ends(self):
        return {A: 12, B: 5}

    def with_records(self, ranges):
        time.sleep(self.slow_s)
        return set(ranges)


def test_the_watch_reports_the_longest_time_between_its_looks(monkeypatch):
    monkeypatch.setattr(takeover, "POLL_S", 0.01)
    fault_at = time.monotonic()
    seconds, partitions, resolution = takeover._watch(
        Watched(slow_s=0.2), {A: 10, B: 5}, fault_at, fault_at + 10, probes=[]
    )
    assert partitions == 1 and seconds is not None
    assert 0.2 <= resolution <= seconds, "a slow look between two polls is the measurement's resolution"


class Reader:
    """A read_committed reader: A holds records at 0..9, B only markers (its offsets 0..3 hand over nothing), C records
    at 0..9; each poll hands over two offsets of every partition assigned and not paused."""

    RECORDS = {A: set(range(10)), B: set(), C: set(range(10))}

    def __init__(self) -> None:
        self.at: dict[TopicPartition, int] = {}
        self.paused: set[TopicPartition] = set()
        self.polls = 0

    def assign(self, tps):
        self.at = {tp: 0 for tp in tps}
        self.paused &= set(tps)  # as kafka-python: a partition assigned again stays paused

    def resume(self, *tps):
        self.paused -= set(tps)

    def seek(self, tp, offset):
        self.at[tp] = offset

    def position(self, tp):
        return self.at[tp]

    def pause(self, tp):
        self.paused.add(tp)

    def poll(self, timeout_ms, max_records):
        self.polls += 1
        handed = {}
        for tp in [tp for tp in self.at if tp not in self.paused]:
            offsets = range(self.at[tp], self.at[tp] + 2)
            self.at[tp] += 2
            records = [type("R", (), {"offset": o})() for o in offsets if o in self.RECORDS[tp]]
            if records:
                handed[tp] = records
        return handed


def test_which_partitions_had_work_is_one_read_up_to_each_first_record():
    committed = Committed.__new__(Committed)
    committed.reader = Reader()
    found = committed.with_records({A: (0, 10), B: (0, 4), C: (3, 3)})
    assert found == {A}, "B holds markers only; C's range is empty"
    assert committed.reader.polls == 2, "read past A's first record, or B and A one after the other"
    again = committed.with_records({A: (0, 10), C: (0, 10)})
    assert again == {A, C}, "a partition paused by the first read was never read again"
