"""Operators as code (shared/operators.py): per operator an answer topic and a game-client role, generated like the
rest of the ACLs, the topic owned and signed by the spin service, and one parametrized channel in the contract."""

from __future__ import annotations

import pytest

from deploy.k8s.users import kafka_users
from shared import operators, records
from shared.config import COMMAND_RETENTION_MS
from shared.events import asyncapi
from shared.operators import OPERATORS, answers_topic, cashier_operator, cashier_role, client_role, wallet_answers_topic
from shared.roles import ROLE_NAMES, acl_rules, role
from shared.signing import SIGNS_AS, WRITERS
from shared.topics import JACKPOT_METERS, SPIN_EVENTS, SPIN_REQUESTS, WALLET_COMMANDS, WALLET_EVENTS, spec


def _ops(name: str, prefix: str = "") -> set[tuple[str, str]]:
    return {(rule.operation, rule.name) for rule in acl_rules(role(name), prefix) if rule.resource == "TOPIC"}


def test_each_operator_has_an_answer_topic_like_spin_events_but_kept_only_as_long_as_the_requests():
    assert len(OPERATORS) >= 2  # the local demo operators the integration tests use
    for operator_id in OPERATORS:
        topic = spec(answers_topic(operator_id))
        assert (topic.key, topic.partitions, topic.kind) == ("player id", spec(SPIN_EVENTS).partitions, "answer")
        assert topic.configs["retention.ms"] == str(COMMAND_RETENTION_MS) != spec(SPIN_EVENTS).configs["retention.ms"]
        assert topic.writers == ("spin",) and topic.readers == (client_role(operator_id), "auditor", "ops")
        assert records.OWNERS[topic.name] == "spin" and topic.name in records.KEYED


def test_an_operators_role_puts_requests_and_reads_its_own_answers_and_the_meters_only():
    a, b = OPERATORS[:2]
    rights = _ops(client_role(a))
    assert ("WRITE", SPIN_REQUESTS) in rights and ("READ", JACKPOT_METERS) in rights
    assert ("READ", answers_topic(a)) in rights
    assert {name for operation, name in rights if operation == "READ"} == {answers_topic(a), JACKPOT_METERS}
    assert {name for operation, name in rights if operation == "WRITE"} == {SPIN_REQUESTS}
    assert ("READ", answers_topic(b)) not in rights and ("READ", SPIN_EVENTS) not in rights
    assert ("READ", "t1." + answers_topic(a)) in _ops(client_role(a), "t1.")  # and so under a deployment prefix
    groups = {rule.name for rule in acl_rules(role(client_role(a))) if rule.resource == "GROUP"}
    assert groups == {f"game-client.{a}."}
    assert role(client_role(a)).quotas == role("game-client").quotas
    assert ("READ", answers_topic(a)) not in _ops("game-client")  # migration step 1: the shared role keeps spin.events


def test_the_roles_are_provisioned_locally_and_on_strimzi_like_every_other():
    names = {user["metadata"]["name"] for user in kafka_users()}
    for operator_id in OPERATORS:
        assert client_role(operator_id) in ROLE_NAMES and client_role(operator_id) in names


def test_the_contract_has_one_parametrized_answer_channel_not_one_per_operator():
    channels = asyncapi.asyncapi_document()["channels"]
    addresses = [channel["address"] for channel in channels.values()]
    assert "spin.answers.{operator}" in addresses
    assert not any(answers_topic(operator_id) in addresses for operator_id in OPERATORS)
    answers = channels["spin_answers_operator"]
    assert set(answers["messages"]) == {"spin_settled_v1", "spin_rejected_v1"}
    assert answers["parameters"]["operator"]["examples"] == list(OPERATORS)


@pytest.mark.parametrize("bad", [("Demo",), ("a_b",), ("-a",), ("a" * 33,), ("x", "x"), ("",)])
def test_an_operator_id_that_cannot_name_a_topic_and_a_kafka_user_or_repeats_is_refused(bad):
    with pytest.raises(ValueError):
        operators.checked(bad)
    assert operators.checked(("demo-a", "op7")) == ("demo-a", "op7")


def test_each_operator_has_a_cashier_answer_topic_like_wallet_events_owned_and_signed_by_the_wallet():
    for operator_id in OPERATORS:
        topic = spec(wallet_answers_topic(operator_id))
        assert (topic.key, topic.partitions, topic.kind) == ("player id", spec(WALLET_EVENTS).partitions, "answer")
        assert topic.configs == spec(answers_topic(operator_id)).configs  # a delivery channel: finite retention
        assert topic.writers == ("wallet",) and topic.readers == (cashier_role(operator_id), "auditor", "ops")
        assert records.OWNERS[topic.name] == "wallet" and topic.name in records.KEYED


def test_an_operators_cashier_writes_the_cashier_commands_and_reads_its_own_results_only():
    a, b = OPERATORS[:2]
    rights = _ops(cashier_role(a))
    assert {name for operation, name in rights if operation == "WRITE"} == {WALLET_COMMANDS}
    assert {name for operation, name in rights if operation == "READ"} == {wallet_answers_topic(a)}
    assert ("READ", wallet_answers_topic(b)) not in rights and ("READ", WALLET_EVENTS) not in rights
    assert ("READ", "t1." + wallet_answers_topic(a)) in _ops(cashier_role(a), "t1.")
    groups = {rule.name for rule in acl_rules(role(cashier_role(a))) if rule.resource == "GROUP"}
    assert groups == {f"cashier.{a}."}
    assert role(cashier_role(a)).quotas == role("cashier").quotas
    assert ("READ", wallet_answers_topic(a)) not in _ops("cashier")  # the plain cashier reads no operator's


def test_each_operators_cashier_has_its_own_signing_key_that_signs_as_the_cashier_and_is_provisioned():
    names = {user["metadata"]["name"] for user in kafka_users()}
    for operator_id in OPERATORS:
        assert cashier_role(operator_id) in WRITERS and SIGNS_AS[cashier_role(operator_id)] == "cashier"
        assert cashier_role(operator_id) in ROLE_NAMES and cashier_role(operator_id) in names
        assert cashier_operator(cashier_role(operator_id)) == operator_id
    assert [cashier_operator(w) for w in ("cashier", "cashier.op-z", "game-client.demo-a", None)] == [None] * 4


def test_the_contract_has_one_parametrized_cashier_answer_channel():
    channels = asyncapi.asyncapi_document()["channels"]
    addresses = [channel["address"] for channel in channels.values()]
    assert "wallet.answers.{operator}" in addresses
    assert not any(wallet_answers_topic(operator_id) in addresses for operator_id in OPERATORS)
    answers = channels["wallet_answers_operator"]
    assert "wallet_deposited_v1" in answers["messages"] and "wallet_command_rejected_v1" in answers["messages"]
    assert answers["parameters"]["operator"]["examples"] == list(OPERATORS)
