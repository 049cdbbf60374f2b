"""Ops rules: live topics are never replay targets, ranges are clamped to the log, only idle groups are reset,
dead-letter headers say where and why, and a re-driven record carries its marker."""

from __future__ import annotations

from shared import dead_letters as dlq
from ops.rules import clamp, refusal_of_group_reset, refusal_of_replay_target
from shared.events import DecodeError


def test_a_replay_into_any_live_contract_topic_is_refused():
    assert refusal_of_replay_target("spin.events", "")
    assert refusal_of_replay_target("pj-1.wallet.events", "pj-1.")
    assert refusal_of_replay_target("other-deployment.jackpot.meters", "pj-1.")
    assert refusal_of_replay_target("spin.events.dlq", "")


def test_a_replay_into_a_new_topic_is_allowed():
    assert refusal_of_replay_target("replay-2026-11-30-spin-events", "") is None


def test_a_requested_range_is_clamped_to_what_the_log_holds():
    assert clamp(0, None, None, 5, 50).size == 45
    assert (clamp(0, 0, 1000, 5, 50).start, clamp(0, 0, 1000, 5, 50).end) == (5, 50)
    assert clamp(0, 40, 10, 5, 50).size == 0


def test_only_a_group_without_members_may_be_reset():
    assert refusal_of_group_reset("Empty", 0) is None
    assert refusal_of_group_reset("Dead", 0) is None
    assert refusal_of_group_reset("Stable", 2)
    assert refusal_of_group_reset("PreparingRebalance", 0)


def test_dead_letter_headers_name_the_origin_and_the_reason_and_read_back():
    headers = dlq.dead_letter_headers(
        DecodeError("data.stake_minor", "not an int"),
        topic="spin.events",
        partition=3,
        offset=99,
        consumer="projector",
        original=[("content-type", b"x")],
    )
    origin = dlq.origin_of(headers)
    assert (origin.topic, origin.partition, origin.offset, origin.field) == ("spin.events", 3, 99, "data.stake_minor")
    assert origin.reason == "not an int" and ("content-type", b"x") in headers


def test_a_redriven_record_keeps_its_headers_minus_the_reasons_plus_the_marker():
    headers = dlq.dead_letter_headers(
        DecodeError("$", "bad"),
        topic="t",
        partition=0,
        offset=1,
        consumer="projector",
        original=[("content-type", b"x")],
    )
    redriven = dlq.redrive_headers(headers, dlq.redrive_marker("t.dlq", 0, 5))
    assert redriven == [("content-type", b"x"), (dlq.REDRIVE, b"t.dlq/0/5")]
    assert dlq.origin_of(redriven) is None


def test_a_re_drive_goes_only_onto_client_facing_topics_never_the_money_paths_internal_ones():
    from ops.rules import refusal_of_redrive

    for internal in ("jackpot.commands.dlq", "jackpot.events.dlq", "spin.journal.dlq"):
        assert "internal topic" in refusal_of_redrive(internal)
    for public in ("spin.requests.dlq", "wallet.commands.dlq", "spin.events.dlq", "jackpot.meters.dlq"):
        assert refusal_of_redrive(public) is None
