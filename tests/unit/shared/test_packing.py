"""The loop's packing of a transaction's outputs (shared/packing.py): a run of consecutive packable outputs of one
topic, key, type and headers becomes one batch-envelope record, its items the outputs' bytes in order; everything else
passes untouched; records stay within MAX_ITEMS and MAX_PACKED_BYTES; the inputs' positions land on the last record.

Scenario: a jackpot transaction of contributions of two networks, a claim's answer and a dead letter between them, as
the jackpot adapter makes its outputs; the loop packs them, places the positions, and a reader unpacks every record."""

from __future__ import annotations

from dataclasses import replace

from services.jackpot.adapters.records import event_record
from shared import records
from shared.events import decode_all
from shared.events import jackpot as jp
from shared.events.base import packable_types
from shared.events.batch import BATCH_CONTENT_TYPE, MAX_ITEMS, MAX_PACKED_BYTES, is_packed
from shared.events.codec import MAX_RECORD_BYTES
from shared.headers import CONTENT_TYPE
from shared.input_position import Output, recorded_inputs, with_inputs
from shared.packing import packed
from shared.topics import JACKPOT_EVENTS, SOURCE_MAX_MESSAGE_BYTES
from tests.support.jackpot import applied_event, rejected_event
from tests.unit.shared.test_loop_carried_position import BOTH, COMMANDS, CONFIG, INTERNAL, _commit

PACKABLE = packable_types(JACKPOT_EVENTS)


def _applied(network_id: str = "diamond-mystery", stake_minor: int = 10, pools: int = 1) -> Output:
    return event_record(applied_event(stake_minor, network_id=network_id, pools=pools))


def _rejected() -> Output:
    return event_record(rejected_event())


def _unpacked(outputs: list[Output]) -> list[bytes]:
    """The ids of every event of the records as a reader unpacks them, in order."""
    return [event.id.bytes for out in outputs if not out.dead_letter for event in decode_all(out.value)]


def test_the_contributions_applied_facts_are_the_jackpot_events_the_loop_may_pack():
    assert PACKABLE == {jp.ContributionsApplied.TYPE}


def test_a_run_of_contributions_becomes_one_record_whose_items_are_their_bytes_in_order():
    run = [_applied(stake_minor=stake) for stake in (10, 50, 2000)]
    (record,) = packed(run, PACKABLE)
    assert is_packed(record.value)
    assert record.value == b'{"batch":"reelstream.batch.v1","items":[' + b",".join(o.value for o in run) + b"]}"
    assert [e.data for e in decode_all(record.value)] == [e.data for o in run for e in decode_all(o.value)]
    assert (record.key, record.topic, record.partition) == (run[0].key, run[0].topic, run[0].partition)
    assert dict(record.headers)[CONTENT_TYPE] == BATCH_CONTENT_TYPE.encode()
    assert dict(run[0].headers)[CONTENT_TYPE] != BATCH_CONTENT_TYPE.encode()


def test_runs_end_at_another_key_type_headers_or_a_dead_letter_and_a_run_of_one_stays_the_message():
    a1, a2, b1, a3, a4, a5 = (
        _applied(n) for n in ("diamond-mystery",) * 2 + ("stjernestoev",) + ("diamond-mystery",) * 3
    )
    answer = _rejected()
    letter = Output(True, b"k", b"{broken", [])
    traced = Output(
        a5.dead_letter, a5.key, a5.value, [*a5.headers, ("traceparent", b"00-x")], message_type=a5.message_type
    )
    outputs = [a1, a2, b1, a3, answer, a4, letter, traced]
    done = packed(outputs, PACKABLE)
    assert [len(decode_all(o.value)) if not o.dead_letter else 0 for o in done] == [2, 1, 1, 1, 1, 0, 1]
    assert done[1] is b1 and done[2] is a3 and done[3] is answer and done[4] is a4 and done[5] is letter
    assert done[6] is traced
    assert _unpacked(done) == _unpacked(outputs)


def test_nothing_is_packed_without_packable_types_or_for_a_tagged_answer():
    outputs = [_applied(), _applied()]
    assert packed(outputs, frozenset()) is outputs
    tagged = [
        Output(o.dead_letter, o.key, o.value, o.headers, tag="answer-won:p-1", message_type=o.message_type)
        for o in outputs
    ]
    assert packed(tagged, PACKABLE) == tagged


def test_a_long_run_is_cut_into_records_of_at_most_max_items():
    outputs = [_applied() for _ in range(MAX_ITEMS + 1)]
    done = packed(outputs, PACKABLE)
    assert [len(decode_all(o.value)) for o in done] == [MAX_ITEMS, 1]
    assert _unpacked(done) == _unpacked(outputs)


def test_a_run_of_large_facts_is_cut_below_the_record_bound():
    # Twenty movements make each fact ~3.6 KB: the byte bound, not the count, cuts these runs.
    outputs = [_applied(pools=20) for _ in range(400)]
    done = packed(outputs, PACKABLE)
    assert len(done) == 2
    assert all(len(o.value) <= MAX_PACKED_BYTES for o in done)
    assert len(done[0].value) + len(outputs[0].value) + 1 > MAX_PACKED_BYTES  # each record as full as the bound lets it
    assert MAX_PACKED_BYTES + 64 * 1024 < min(MAX_RECORD_BYTES, SOURCE_MAX_MESSAGE_BYTES)  # room for the headers
    assert _unpacked(done) == _unpacked(outputs)


def test_the_inputs_positions_ride_on_the_last_record_after_packing():
    outputs = [_rejected(), *(_applied() for _ in range(5)), Output(True, b"k", b"{broken", [])]
    positions = {"jackpot.commands": 12, "jackpot.internal": 345}
    marked, travel = with_inputs(packed(outputs, PACKABLE), positions, ("events",), "events")
    assert travel
    assert [recorded_inputs(o.headers) for o in marked] == [{}, positions, {}]
    assert is_packed(marked[1].value) and len(decode_all(marked[1].value)) == 5
    assert records.provenance_problem(JACKPOT_EVENTS, marked[1].headers, marked[1].value, marked[1].key) is None


def test_the_loop_packs_a_transactions_packable_run_and_puts_the_positions_on_the_packed_record():
    config = replace(CONFIG, packable=PACKABLE)
    outputs = [_rejected(), *(_applied() for _ in range(3))]
    producer, sent = _commit({COMMANDS: 11, INTERNAL: 40}, BOTH, config, outputs=outputs)
    assert len(sent) == 2 and sent[0].value == outputs[0].value
    assert _unpacked(sent) == _unpacked(outputs)
    assert [recorded_inputs(out.headers) for out in sent] == [{}, BOTH]
    assert producer.offsets is None
