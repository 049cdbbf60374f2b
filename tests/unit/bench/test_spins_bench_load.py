"""The spins bench's load generator keeps each request's first answer, and its hop table reads the broker's times."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from bench.spin_load import Answers
from bench.spin_platform import CHAIN, hop_breakdown
from shared.events import encode, envelope
from shared.events.spin import SpinRejected

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def _rejected(request_id: uuid.UUID, code: str) -> bytes:
    data = SpinRejected(request_id=request_id, player_id="p-1", code=code, message="no")
    return encode(envelope(data, source="test", time=NOW))


def test_the_first_answer_to_a_request_is_the_one_timed_and_counted():
    answers, request_id = Answers(), uuid.uuid4()
    answers.take(_rejected(request_id, "INSUFFICIENT_FUNDS"), 1.0, 100.0)
    answers.take(_rejected(request_id, "INSUFFICIENT_FUNDS"), 2.0, 200.0)  # a redelivery
    assert answers.at == {request_id: 1.0} and answers.wall == {request_id: 100.0}
    assert answers.codes == {"INSUFFICIENT_FUNDS": 1} and answers.settled == 0


def test_a_phase_counts_settled_spins_apart_from_rejections_by_code():
    answers = Answers()
    refused, settled, unanswered = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    answers.take(_rejected(refused, "SPIN_IN_PROGRESS"), 1.0, 1.0)
    answers.at[settled] = 1.5  # what take() records for a spin.settled answer
    assert answers.tally([refused, settled, unanswered]) == {"settled": 1, "rejected": {"SPIN_IN_PROGRESS": 1}}


def test_records_that_are_not_answers_are_ignored():
    answers = Answers()
    answers.take(
        b'{"type": "reelstream.spin.requested.v1", "data": {"request_id": "%s"}}' % str(uuid.uuid4()).encode(), 1.0, 1.0
    )
    assert answers.at == {} and answers.codes == {}


def test_hops_are_the_differences_of_consecutive_broker_times_from_the_due_instant_to_the_read():
    rid = "r-1"
    times = {index: 1_000_000 + 10 * index for index in range(len(CHAIN))}  # ms; each hop 10 ms
    hops = hop_breakdown(
        {rid: times, "rejected": {0: 1_000_000}},
        {rid: 999.995, "rejected": 999.995},
        {rid: times[len(CHAIN) - 1] / 1000 + 0.002},
    )
    assert [hop["samples"] for hop in hops] == [1] * (len(CHAIN) + 1)  # the incomplete chain is left out
    assert round(hops[0]["p50_ms"], 3) == 5.0
    assert {round(hop["p50_ms"], 3) for hop in hops[1:-1]} == {10.0}
    assert round(hops[-1]["p50_ms"], 3) == 2.0
