"""The broker's rights follow the signatures: no role but a topic's owner (ops and admin aside) may write a topic whose
records only that owner signs (shared/roles.py owner_write_problem), in every deployment the roles make — the local
broker's ACLs (`reelstream acl apply`), compose's provisioning and the KafkaUsers (deploy/k8s/checks.py
`topic-owners`) — and the wallet has no right at all on the seamless saga's topics."""

from __future__ import annotations

import pytest

from shared.records import OWNERS
from shared.roles import AclRule, acl_rules, all_rules, owner_write_problem, role
from shared.topics import SEAMLESS_SAGA, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS


@pytest.mark.parametrize("prefix", ["", "t0123456789a."])
def test_no_role_may_write_a_topic_another_writer_signs(prefix):
    assert [rule for rule in all_rules(prefix) if owner_write_problem(rule, prefix)] == []


def test_the_saga_owns_its_topics_and_the_wallet_neither_writes_nor_reads_them():
    assert OWNERS[WALLET_SEAMLESS] == OWNERS[WALLET_SEAMLESS_CALLS] == SEAMLESS_SAGA
    wallet = {rule.name for rule in acl_rules(role("wallet"))}
    assert not wallet & {WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS}


@pytest.mark.parametrize(
    "rule",
    [
        AclRule("User:wallet", "TOPIC", "t.wallet.seamless", "LITERAL", "WRITE"),
        AclRule("User:wallet", "TOPIC", "t.wallet.seamless-calls", "LITERAL", "ALL"),
        AclRule("User:wallet", "TOPIC", "t.wallet.", "PREFIXED", "WRITE"),
        AclRule("User:spin", "TOPIC", "*", "LITERAL", "WRITE"),
    ],
)
def test_a_write_covering_the_sagas_record_by_another_principal_is_named(rule):
    assert owner_write_problem(rule, "t.") is not None


@pytest.mark.parametrize(
    "rule",
    [
        AclRule(f"User:{SEAMLESS_SAGA}", "TOPIC", "t.wallet.seamless", "LITERAL", "WRITE"),
        AclRule("User:wallet", "TOPIC", "t.wallet.seamless", "LITERAL", "READ"),
        AclRule("User:wallet", "TOPIC", "t.wallet.seamless", "LITERAL", "WRITE", "DENY"),
        AclRule("User:ops", "TOPIC", "t.wallet.events", "LITERAL", "WRITE"),
        AclRule("User:admin", "TOPIC", "*", "LITERAL", "ALL"),
        AclRule("User:wallet", "TOPIC", "t.wallet.internal.dlq", "LITERAL", "WRITE"),
    ],
)
def test_the_owners_own_writes_reads_denials_and_ops_re_drives_are_no_problem(rule):
    assert owner_write_problem(rule, "t.") is None


def test_the_named_problem_says_who_may_write_what_only_whom_signs():
    rule = AclRule("User:wallet", "TOPIC", "t.wallet.seamless", "LITERAL", "WRITE")
    assert owner_write_problem(rule, "t.") == "wallet may write wallet.seamless, which only 'seamless-saga' signs"
