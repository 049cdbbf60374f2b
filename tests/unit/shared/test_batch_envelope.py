"""Reading a topic the loop may pack (shared/events/codec.py: decode_all, shared/records.py: trusted_events): a batch
envelope's items in order, a single message as before, and jackpot.events history written before the seam (one
ContributionsApplied holding a run of contributions) unchanged. Every guard of the codec holds for each item, and the
envelope itself is bounded: its version, its shape, 1 .. MAX_ITEMS items of one type."""

from __future__ import annotations

import uuid

import orjson
import pytest

from shared import records
from shared.events import DecodeError, broker_time, decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.events.batch import MAX_ITEMS, is_packed, pack
from shared.events.codec import MAX_RECORD_BYTES
from shared.topics import JACKPOT_EVENTS
from tests.support.jackpot import applied_event, rejected_event

NOW = broker_time(1_800_000_000_000)


def _applied(*stakes: int):
    return applied_event(*stakes)


class _Record:
    def __init__(self, value: bytes, writer: str = "jackpot") -> None:
        self.value, self.key, self.headers = value, b"diamond-mystery", records.headers_for(writer)


def test_a_batch_envelope_reads_as_its_items_in_order():
    events = [_applied(stake) for stake in (10, 50, 2000)]
    value = pack([encode(event) for event in events])
    assert is_packed(value)
    assert decode_all(value, expect_kind="event") == tuple(events)


def test_a_single_message_reads_as_itself():
    event = _applied(10)
    assert not is_packed(encode(event))
    assert decode_all(encode(event)) == (event,)


def test_history_written_before_the_seam_a_run_in_one_event_stays_readable():
    # Before the seam the jackpot folded up to 1,000 consecutive contributions into one ContributionsApplied.
    old = _applied(*range(10, 1010))
    (read,) = decode_all(encode(old), expect_kind="event")
    assert read == old
    assert [item.stake_minor for item in read.data.contributions] == list(range(10, 1010))


def test_the_trusted_reader_unpacks_what_the_jackpot_wrote_and_quarantines_what_it_did_not():
    events = [_applied(10), _applied(50)]
    value = pack([encode(event) for event in events])
    assert records.trusted_events(JACKPOT_EVENTS, _Record(value)) == (tuple(events), None)
    assert records.trusted_events(JACKPOT_EVENTS, _Record(encode(events[0]))) == ((events[0],), None)
    forged, problem = records.trusted_events(JACKPOT_EVENTS, _Record(value, writer="ops"))
    assert forged == () and problem is not None


@pytest.mark.parametrize(
    ("value", "field"),
    [
        (b'{"batch":"reelstream.batch.v2","items":[]}', "batch"),
        (b'{"batch":"reelstream.batch.v1","items":[]}', "items"),
        (b'{"batch":"reelstream.batch.v1","items":{}}', "items"),
        (b'{"batch":"reelstream.batch.v1","items":[1],"more":1}', "items"),
        (b'{"batch":"reelstream.batch.v1","items":[{"type":"reelstream.nothing.v1"}]}', "items.0.type"),
        (b'{"batch":"reelstream.batch.v1","items":[' + b"[" * 40 + b"]" * 40 + b"]}", "$"),
        (b'{"batch":"reelstream.batch.v1","items":[', "$"),
    ],
)
def test_a_malformed_envelope_is_refused_naming_what_is_wrong(value, field):
    with pytest.raises(DecodeError) as refused:
        decode_all(value)
    assert refused.value.field == field


def test_an_item_that_breaks_a_guard_is_refused_naming_its_index_and_field():
    good, bad = encode(_applied(10)), orjson.loads(encode(_applied(50)))
    bad["data"]["contributions"][0]["stake_minor"] = "50"
    with pytest.raises(DecodeError) as refused:
        decode_all(pack([good, orjson.dumps(bad)]))
    assert refused.value.field == "items.1.data.contributions.0.stake_minor"


def test_items_of_two_types_or_a_command_among_events_are_refused():
    mixed = pack([encode(_applied(10)), encode(rejected_event())])
    with pytest.raises(DecodeError, match="one type"):
        decode_all(mixed)
    command = jp.Contribute(
        network_id="diamond-mystery",
        contribution_id=uuid.uuid4(),
        game="rising-joker",
        currency="EUR",
        stake_minor=10,
        contribution_micro=40_000,
        player_id="p-1",
    )
    with pytest.raises(DecodeError) as refused:
        decode_all(pack([encode(envelope(command, source="test", time=NOW))]), expect_kind="event")
    assert refused.value.field == "items.0.type"


def test_more_items_than_max_items_or_bytes_than_the_record_bound_are_refused():
    one = encode(_applied(10))
    too_many = b'{"batch":"reelstream.batch.v1","items":[' + b",".join([one] * (MAX_ITEMS + 1)) + b"]}"
    with pytest.raises(DecodeError, match="items"):
        decode_all(too_many)
    too_big = b'{"batch":"reelstream.batch.v1","items":[' + b" " * MAX_RECORD_BYTES + one + b"]}"
    with pytest.raises(DecodeError, match="bytes"):
        decode_all(too_big)
