"""The input position travels with the events: the last event of a batch carries the next wallet.commands offset,
dead letters carry none, and a record's headers give it back."""
from __future__ import annotations

from services.wallet.adapters.handler import Output
from services.wallet.adapters.partition import POSITION_HEADER, recorded_position
from services.wallet.adapters.runner import with_position


def event(value: bytes) -> Output:
    return Output(dead_letter=False, key=b"p", value=value, headers=[("content-type", b"json")])


def dead(value: bytes) -> Output:
    return Output(dead_letter=True, key=b"p", value=value, headers=[("reelstream-dlq-reason", b"bad")])


def test_only_the_last_event_of_a_batch_carries_the_next_commands_offset():
    marked = with_position([event(b"a"), event(b"b"), dead(b"x")], 120)
    assert [recorded_position(out.headers) for out in marked] == [None, 120, None]
    assert [out.value for out in marked] == [b"a", b"b", b"x"]
    assert marked[1].headers[0] == ("content-type", b"json"), "the event's own headers are kept"


def test_a_batch_of_dead_letters_alone_carries_no_position_and_an_empty_batch_stays_empty():
    letters = [dead(b"x"), dead(b"y")]
    assert with_position(letters, 7) == letters
    assert with_position([], 7) == []


def test_a_record_without_the_header_records_no_position():
    assert recorded_position(None) is None
    assert recorded_position([("content-type", b"json")]) is None
    assert recorded_position([(POSITION_HEADER, b"4096")]) == 4096
