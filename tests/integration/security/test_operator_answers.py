"""Operators are tenants, through the real broker with real principals: each operator's front ends connect as
game-client.<O> and read spin.answers.<O> alone (shared/operators.py). A broker provisioned before these roles existed
gets their SCRAM users here (deleted afterwards); the ACLs come with the test's topic prefix.

Scenario: demo-a's principal is refused demo-b's answer topic and spin.events; a spin with demo-b's token is answered
on demo-b's topic (and on spin.events, the same bytes, signed by the spin service) and never on demo-a's; a request
naming demo-a with demo-b's token is refused UNAUTHENTICATED on demo-b's topic.
"""

from __future__ import annotations

import time
import uuid

import pytest
from kafka.errors import TopicAuthorizationFailedError

from reelstream.client import ReelstreamClient, Rejected, Settled
from shared import records
from shared.kafka import producer
from shared.operators import OPERATORS, answers_topic, client_role
from shared.session import issue_token
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS
from tests.support.principals import clients_with, read_refused
from tests.integration.spin.conftest import client_for, platform_factory  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration

A, B = OPERATORS[:2]
# The spin service's session ring: one key per operator (each operator's backend alone holds its own).
RING = f"ka@{A}:{uuid.uuid4().hex},kb@{B}:{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def operator_roles(secured, tmp_path_factory):
    """The clients folder with a file per game-client.<O> role: the broker's own where `reelstream infra up` made
    them, else SCRAM users made here with the project's provisioning code, deleted after the module."""
    roles = [client_role(o) for o in OPERATORS]
    with clients_with(secured, roles, tmp_path_factory.mktemp("clients")) as folder:
        yield folder


def test_an_operators_principal_reads_its_own_answers_only(secured, operator_roles, deployment):
    mine, theirs = client_role(A), deployment + answers_topic(B)
    assert read_refused(secured, mine, theirs)
    assert read_refused(secured, mine, deployment + SPIN_EVENTS)
    assert read_refused(secured, "game-client", deployment + answers_topic(A))  # the shared role sees no operator's
    assert not read_refused(secured, mine, deployment + answers_topic(A))  # the control: its own topic reads
    sender = producer(secured, role=mine)
    try:
        assert sender.send(deployment + SPIN_REQUESTS, key=b"p-1", value=b"{}").get(timeout=15).offset >= 0
        with pytest.raises(TopicAuthorizationFailedError):
            sender.send(deployment + answers_topic(A), key=b"p-1", value=b"{}").get(timeout=15)  # only spin writes it
    finally:
        sender.close(timeout=5)


@pytest.fixture(scope="module")
def platform(secured, keyed, operator_roles, platform_factory):  # noqa: F811 - the imported fixture
    return platform_factory(REELSTREAM_SESSION_KEYS=RING)


def _of(platform, topic: str, player: str) -> list:
    return [record for record in platform.read_raw(topic) if record.key == player.encode()]


def _funded_player(platform) -> str:
    player = f"op-{uuid.uuid4().hex[:10]}"
    with client_for(platform) as cashier:
        cashier.deposit(player, 10_000, "EUR", timeout_s=30)
    return player


def _token(player: str, operator_id: str) -> str:
    return issue_token(RING, player, time.time_ns() // 1_000_000 + 3_600_000, operator_id=operator_id)


def test_a_spin_with_bs_token_is_answered_on_bs_topic_and_spin_events_never_on_as(platform):
    player = _funded_player(platform)
    with ReelstreamClient(platform.bootstrap, platform.prefix, role=client_role(B), operator_id=B) as client:
        answer = client.spin(player, "rising-joker", 100, "EUR", _token(player, B), timeout_s=30)
    assert isinstance(answer, Settled) and answer.data.operator_id == B
    (copy,) = _of(platform, answers_topic(B), player)
    (kept,) = [record for record in _of(platform, SPIN_EVENTS, player) if record.value == copy.value]
    assert records.writer_of(copy.headers) == "spin"
    assert records.provenance_problem(answers_topic(B), copy.headers, copy.value, copy.key) is None  # signed
    assert records.provenance_problem(SPIN_EVENTS, kept.headers, kept.value, kept.key) is None
    assert _of(platform, answers_topic(A), player) == []


def test_a_request_naming_a_with_bs_token_is_refused_on_bs_topic(platform):
    player = _funded_player(platform)
    with ReelstreamClient(platform.bootstrap, platform.prefix, role=client_role(B), operator_id=B) as client:
        answer = client.spin(player, "rising-joker", 100, "EUR", _token(player, B), operator_id=A, timeout_s=30)
    assert isinstance(answer, Rejected) and answer.code == "UNAUTHENTICATED" and B in answer.message
    (copy,) = _of(platform, answers_topic(B), player)
    assert copy.value in {record.value for record in _of(platform, SPIN_EVENTS, player)}
    assert _of(platform, answers_topic(A), player) == []
