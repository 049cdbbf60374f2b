"""How the services' consumers join their groups: session timeout from the environment, static membership only when
an instance id is given (two processes sharing one would fence each other)."""

from __future__ import annotations

from shared.kafka import group_membership


def test_without_an_instance_id_membership_is_dynamic_with_a_ten_second_session():
    options = group_membership({})
    assert "group_instance_id" not in options
    assert options["session_timeout_ms"] == 10_000
    assert options["heartbeat_interval_ms"] == 2_000


def test_an_instance_id_makes_the_member_static_and_the_environment_sets_the_session():
    options = group_membership({"REELSTREAM_INSTANCE_ID": "wallet-0", "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000"})
    assert options["group_instance_id"] == "wallet-0"
    assert options["session_timeout_ms"] == 6_000


def test_a_session_timeout_passed_by_the_caller_wins_over_the_environment():
    assert group_membership({"REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000"}, 4_000)["session_timeout_ms"] == 4_000
