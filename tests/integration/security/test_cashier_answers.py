"""Operators are tenants on the cashier side too, through the real broker with real principals: each operator's
cashier connects as cashier.<O>, signs with its own key and reads wallet.answers.<O> alone (shared/operators.py). A
broker provisioned before these roles existed gets their SCRAM users here (deleted afterwards); the ACLs come with the
test's topic prefix, the keys with the module's signing directory (every writer's, as `reelstream infra up` makes).

Scenario: demo-a's cashier principal is refused demo-b's cashier answers and wallet.events; a deposit by demo-a's
cashier is answered on demo-a's topic (the bytes of wallet.events, signed by the wallet) and never on demo-b's; a
deposit naming demo-b signed with demo-a's key is refused OPERATOR_MISMATCH on demo-a's topic only; the plain
cashier's deposit gets no operator's copy; the CLI's `wallet deposit|withdraw --operator demo-a` does what the SDK does
(its principal and key, answered on demo-a's topic), and `wallet balance --operator demo-a` (the SDK's `balances`)
shows the balance of the player's latest result there, read as demo-a's cashier, which demo-b's cashier does not see.
"""

from __future__ import annotations

import contextlib
import io
import uuid

import pytest
from kafka.errors import TopicAuthorizationFailedError

from reelstream.cli import run
from reelstream.client import ReelstreamClient
from shared import records
from shared.events.wallet import CommandRejected, Deposited, Withdrawn
from shared.kafka import producer
from shared.operators import OPERATORS, cashier_role, wallet_answers_topic
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS
from tests.support.principals import clients_with, read_refused
from tests.integration.spin.conftest import client_for, platform_factory  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration

A, B = OPERATORS[:2]


@pytest.fixture(scope="module")
def cashier_roles(secured, tmp_path_factory):
    """The clients folder with a file per cashier.<O> role: the broker's own where `reelstream infra up` made them,
    else SCRAM users made here with the project's provisioning code, deleted after the module."""
    roles = [cashier_role(o) for o in OPERATORS]
    with clients_with(secured, roles, tmp_path_factory.mktemp("clients")) as folder:
        yield folder


def test_an_operators_cashier_reads_its_own_results_only(secured, cashier_roles, deployment):
    mine = cashier_role(A)
    assert read_refused(secured, mine, deployment + wallet_answers_topic(B))
    assert read_refused(secured, mine, deployment + WALLET_EVENTS)
    assert read_refused(secured, "cashier", deployment + wallet_answers_topic(A))  # the plain cashier sees none
    assert not read_refused(secured, mine, deployment + wallet_answers_topic(A))  # the control: its own topic reads
    sender = producer(secured, role=mine)
    try:
        assert sender.send(deployment + WALLET_COMMANDS, key=b"p-1", value=b"{}").get(timeout=15).offset >= 0
        with pytest.raises(TopicAuthorizationFailedError):
            sender.send(deployment + wallet_answers_topic(A), key=b"p-1", value=b"{}").get(timeout=15)  # wallet only
    finally:
        sender.close(timeout=5)


@pytest.fixture(scope="module")
def platform(secured, keyed, cashier_roles, platform_factory):  # noqa: F811 - the imported fixture
    return platform_factory()


def _of(platform, topic: str, player: str) -> list:
    return [record for record in platform.read_raw(topic) if record.key == player.encode()]


def _cashier(platform, operator_id: str) -> ReelstreamClient:
    return ReelstreamClient(
        platform.bootstrap, platform.prefix, role=cashier_role(operator_id), operator_id=operator_id
    )


def test_a_deposit_by_as_cashier_is_answered_on_as_topic_with_the_bytes_of_wallet_events(platform):
    player = f"ca-{uuid.uuid4().hex[:10]}"
    with _cashier(platform, A) as cashier:
        deposited = cashier.deposit(player, 10_000, "EUR", timeout_s=30)
        withdrawn = cashier.withdraw(player, 2_500, "EUR", timeout_s=30)
    assert isinstance(deposited, Deposited) and isinstance(withdrawn, Withdrawn)
    copies = _of(platform, wallet_answers_topic(A), player)
    kept = {record.value: record for record in _of(platform, WALLET_EVENTS, player)}
    assert len(copies) == 2 and all(copy.value in kept for copy in copies)
    for copy in copies:
        assert records.writer_of(copy.headers) == "wallet"
        assert records.provenance_problem(wallet_answers_topic(A), copy.headers, copy.value, copy.key) is None
        original = kept[copy.value]
        assert records.provenance_problem(WALLET_EVENTS, original.headers, original.value, original.key) is None
    assert _of(platform, wallet_answers_topic(B), player) == []


def test_a_deposit_naming_b_signed_with_as_key_is_refused_on_as_topic_only(platform):
    player = f"ca-{uuid.uuid4().hex[:10]}"
    with _cashier(platform, A) as cashier:
        refused = cashier.deposit(player, 10_000, "EUR", operator_id=B, timeout_s=30)
    assert isinstance(refused, CommandRejected) and refused.code == "OPERATOR_MISMATCH"
    (copy,) = _of(platform, wallet_answers_topic(A), player)
    assert copy.value in {record.value for record in _of(platform, WALLET_EVENTS, player)}
    assert _of(platform, wallet_answers_topic(B), player) == []


def test_bs_cashier_cannot_withdraw_from_an_account_as_deposit_opened(platform):
    # An account belongs to the operator of its first deposit: B's cashier, with its own key and principal, is
    # refused on its own topic and moves nothing; A's withdrawal after it is taken.
    player = f"ca-{uuid.uuid4().hex[:10]}"
    with _cashier(platform, A) as mine, _cashier(platform, B) as theirs:
        assert isinstance(mine.deposit(player, 10_000, "EUR", timeout_s=30), Deposited)
        refused = theirs.withdraw(player, 9_000, "EUR", timeout_s=30)
        assert isinstance(refused, CommandRejected) and refused.code == "OPERATOR_MISMATCH"
        assert A not in (refused.message or "")
        withdrawn = mine.withdraw(player, 9_000, "EUR", timeout_s=30)
    assert isinstance(withdrawn, Withdrawn) and withdrawn.balance_after_minor == 1_000
    assert len(_of(platform, wallet_answers_topic(B), player)) == 1


def test_the_plain_cashiers_deposit_is_answered_on_wallet_events_alone(platform):
    player = f"ca-{uuid.uuid4().hex[:10]}"
    with client_for(platform) as cashier:
        assert isinstance(cashier.deposit(player, 10_000, "EUR", timeout_s=30), Deposited)
    assert len(_of(platform, WALLET_EVENTS, player)) == 1
    assert all(_of(platform, wallet_answers_topic(o), player) == [] for o in OPERATORS)


def _signer(record) -> str | None:
    """Who signed a cashier command, as the wallet's one provenance check finds it."""
    return records.provenance(WALLET_COMMANDS, record.headers, record.value, record.key)[0]


def _cli(platform, monkeypatch, *argv: str) -> tuple[int, str, str]:
    """The CLI in this process against the platform's topics, with the clients folder of the module (cashier.<O>)."""
    monkeypatch.setenv("REELSTREAM_TOPIC_PREFIX", platform.prefix)
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", platform.bootstrap)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_cli_deposits_and_withdraws_as_as_cashier_answered_on_as_topic(platform, monkeypatch):
    player = f"ca-{uuid.uuid4().hex[:10]}"
    code, out, err = _cli(platform, monkeypatch, "wallet", "deposit", player, "10000", "--operator", A)
    assert code == 0, err
    assert "deposited" in out and "balance 100.00" in out
    code, out, err = _cli(platform, monkeypatch, "wallet", "withdraw", player, "2500", "--operator", A)
    assert code == 0, err
    assert "withdrawn" in out and "balance 75.00" in out
    copies = _of(platform, wallet_answers_topic(A), player)
    assert len(copies) == 2
    assert {records.writer_of(copy.headers) for copy in copies} == {"wallet"}
    assert _of(platform, wallet_answers_topic(B), player) == []
    (command, *_) = [r for r in platform.read_raw(WALLET_COMMANDS) if r.key == player.encode()]
    assert records.cashier_operator(WALLET_COMMANDS, command.value, _signer(command)) == A
    code, out, err = _cli(platform, monkeypatch, "wallet", "balance", player, "--operator", A, "--units", "minor")
    assert code == 0, err
    assert "7,500" in out and "withdrawn" in out
    code, out, err = _cli(platform, monkeypatch, "wallet", "balance", player, "--operator", B)
    assert code == 3 and out == "" and f"no cashier result of {B}" in err


def test_an_operators_cashier_sees_its_players_balance_as_of_its_latest_result(platform):
    player = f"ca-{uuid.uuid4().hex[:10]}"
    with _cashier(platform, A) as cashier:
        cashier.deposit(player, 10_000, "EUR", timeout_s=30)
        refused = cashier.withdraw(player, 20_000, "EUR", timeout_s=30)
        assert isinstance(refused, CommandRejected) and refused.code == "INSUFFICIENT_FUNDS"
        (seen,) = cashier.balances(player)
    assert (seen.currency, seen.balance_minor, seen.transaction_id) == ("EUR", 10_000, refused.transaction_id)
    with _cashier(platform, B) as other:
        assert other.balances(player) == []
