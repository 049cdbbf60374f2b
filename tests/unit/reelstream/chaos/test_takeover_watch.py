"""The takeover watch dates each commit at the look after it, so it states how far apart its looks were; and whether
a partition had work is asked with a read that stops at the first record (a read of the whole range, ending in
markers, held the watch between looks for a poll's timeout each)."""

from __future__ import annotations

import time

from kafka import TopicPartition

from ops.groups import committed_records_between
from reelstream.chaos import takeover

A, B = TopicPartition("t", 0), TopicPartition("t", 1)


class Committed:
    """A watch's view: A commits past the kill at the third look; B gets a record but its look is slow."""

    def __init__(self, slow_s: float) -> None:
        self.looks, self.slow_s = 0, slow_s

    def now(self):
        self.looks += 1
        return {A: 11 if self.looks >= 3 else 10, B: 5}

    def ends(self):
        return {A: 12, B: 5}

    def has_record(self, tp, start, end):
        time.sleep(self.slow_s)
        return True


def test_the_watch_reports_the_longest_time_between_its_looks(monkeypatch):
    monkeypatch.setattr(takeover, "POLL_S", 0.01)
    fault_at = time.monotonic()
    seconds, partitions, resolution = takeover._watch(
        Committed(slow_s=0.2), {A: 10, B: 5}, fault_at, fault_at + 10, probes=[]
    )
    assert partitions == 1 and seconds is not None
    assert 0.2 <= resolution <= seconds, "a slow look between two polls is the measurement's resolution"


class Reader:
    """A read_committed reader over offsets 0..9, all records, two a poll."""

    def __init__(self) -> None:
        self.at, self.polls = 0, 0

    def assign(self, tps):
        pass

    def seek(self, tp, offset):
        self.at = offset

    def position(self, tp):
        return self.at

    def poll(self, timeout_ms, max_records):
        self.polls += 1
        records = [type("R", (), {"offset": offset})() for offset in range(self.at, min(self.at + 2, 10))]
        self.at = min(self.at + 2, 10)
        return {A: records} if records else {}


def test_whether_a_range_has_a_record_reads_only_up_to_the_first():
    reader = Reader()
    assert committed_records_between(reader, A, 0, 10, limit=1) == (1, False)
    assert reader.polls == 1
    assert committed_records_between(Reader(), A, 0, 10) == (10, True)
