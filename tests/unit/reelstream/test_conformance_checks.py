"""The conformance kit's judgement of one client run: it passes a right answer and names each thing a client gets
wrong."""

from __future__ import annotations

import json
import zlib

import pytest

from reelstream.conformance.relay import Seen, request_id_of
from reelstream.conformance.vectors import load_vectors
from reelstream.conformance.verify import Platform, Run, check_step, parse_answers, player_for
from shared.partitioning import partition_for

PLATFORM = Platform("127.0.0.1:9092", "", "secret", 6)
PLAYER = "cf-player-1"
HOME = partition_for(PLAYER.encode(), 6)
REQUEST_ID = "11111111-1111-4111-8111-111111111111"
HEADERS = {"content-type": b"application/cloudevents+json"}
VECTORS = {vector.name: vector for vector in load_vectors()}


def settled_line(**overrides) -> dict:
    return {
        "outcome": "settled",
        "request_id": REQUEST_ID,
        "event_id": "e-1",
        "win_minor": 40,
        "balance_after_minor": 10_000 - 100 + 40,
        "attempts": 1,
        "duplicates": 0,
        **overrides,
    }


def seen(requests: int = 1, partition: int = HOME, key: bytes = PLAYER.encode(), headers=HEADERS) -> Seen:
    return Seen("none", [(partition, key, headers)] * requests, ["e-1"])


def judge(
    vector: str, answers: list[dict], returncode: int = 0, relayed: Seen | None = None, step: int = 0, earlier=()
) -> list[str]:
    the_step = VECTORS[vector].steps[step]
    run = Run(returncode, answers, "")
    return check_step(the_step, run, relayed or seen(), REQUEST_ID, PLAYER, PLATFORM, 10_000, list(earlier))


def test_a_right_answer_passes():
    assert judge("settles-rising-joker", [settled_line()]) == []


def test_a_client_that_reports_a_duplicate_answer_twice_fails():
    assert "exactly one answer line" in judge("duplicated-answer", [settled_line(), settled_line()])[0]


def test_a_client_that_saw_no_duplicate_fails_the_duplicate_vector():
    assert any("duplicates 0, expected at least 1" in p for p in judge("duplicated-answer", [settled_line()]))


def test_a_client_that_never_retried_fails_the_late_answer_vector():
    problems = judge("answer-after-timeout-and-retry", [settled_line(duplicates=1)])
    assert any("attempts 1, expected at least 2" in p for p in problems)


def test_a_retry_must_reach_the_platform_as_often_as_the_client_says():
    problems = judge("answer-after-timeout-and-retry", [settled_line(attempts=2, duplicates=1)], relayed=seen(1))
    assert any("says it sent 2 requests, 1 arrived" in p for p in problems)


def test_a_rejection_must_exit_non_zero_and_carry_its_code():
    line = {"outcome": "rejected", "request_id": REQUEST_ID, "event_id": "e-1", "code": "UNKNOWN_GAME", "attempts": 1}
    assert judge("unknown-game", [line], returncode=2) == []
    assert any("exit status 0" in p for p in judge("unknown-game", [line], returncode=0))
    assert any("code 'INVALID_STAKE'" in p for p in judge("unknown-game", [{**line, "code": "INVALID_STAKE"}], 2))


def test_a_request_off_the_murmur2_partition_or_keyed_otherwise_or_without_the_header_fails():
    away = (HOME + 1) % 6
    off = judge("settles-rising-joker", [settled_line()], relayed=seen(partition=away))
    assert any(f"partition {away}" in p for p in off)
    assert any("record key" in p for p in judge("settles-rising-joker", [settled_line()], relayed=seen(key=b"x")))
    assert any("content-type" in p for p in judge("settles-rising-joker", [settled_line()], relayed=seen(headers={})))


def test_an_answer_the_platform_never_wrote_or_a_wrong_balance_fails():
    made_up = judge("settles-rising-joker", [settled_line(event_id="e-9")])
    assert any("none of the platform's answers" in p for p in made_up)
    assert any("balance_after_minor" in p for p in judge("settles-rising-joker", [settled_line(balance_after_minor=1)]))


def test_a_repeat_must_bring_back_the_first_answers_event():
    first = settled_line()
    assert judge("repeat-gets-the-same-answer", [settled_line()], step=1, earlier=[first]) == []
    problems = judge(
        "repeat-gets-the-same-answer",
        [settled_line(event_id="e-2")],
        step=1,
        earlier=[first],
        relayed=Seen("none", [(HOME, PLAYER.encode(), HEADERS)], ["e-1", "e-2"]),
    )
    assert any("differs from step 0" in p for p in problems)


def test_the_crc32_vector_expects_the_request_where_crc32_puts_it_and_a_player_whose_partitions_differ():
    vector = VECTORS["crc32-partitioner-is-refused"]
    player = player_for(vector, 6)
    crc = zlib.crc32(player.encode()) % 6
    assert crc != partition_for(player.encode(), 6)
    line = {
        "outcome": "rejected",
        "request_id": REQUEST_ID,
        "event_id": "e-1",
        "code": "WRONG_PARTITION",
        "message": "... murmur2 ...",
        "attempts": 1,
    }
    run = Run(2, [line], "")
    assert (
        check_step(
            vector.steps[0],
            run,
            Seen("none", [(crc, player.encode(), HEADERS)], ["e-1"]),
            REQUEST_ID,
            player,
            PLATFORM,
            10_000,
            [],
        )
        == []
    )


def test_answer_lines_are_found_among_other_output_and_request_ids_read_tolerantly():
    out = "connecting...\n" + json.dumps(settled_line()) + '\n{"not": "an answer"}\n'
    assert parse_answers(out) == [settled_line()]
    assert request_id_of(json.dumps({"data": {"request_id": REQUEST_ID}}).encode()) == REQUEST_ID
    assert request_id_of(b"\xff not json") is None and request_id_of(b"[1]") is None


@pytest.mark.parametrize(
    "name",
    [
        "duplicated-answer",
        "answer-after-timeout-and-retry",
        "rejection-duplicated-and-late",
        "crc32-partitioner-is-refused",
    ],
)
def test_the_vectors_cover_what_clients_get_wrong(name):
    assert name in VECTORS


def test_a_client_printing_nonsense_numbers_is_failed_not_a_crash_of_the_kit():
    problems = judge("answer-after-timeout-and-retry", [settled_line(attempts="two", duplicates=None, win_minor="x")])
    assert any("attempts two, expected at least 2" in p for p in problems)
    assert any("balance_after_minor" in p for p in problems)
