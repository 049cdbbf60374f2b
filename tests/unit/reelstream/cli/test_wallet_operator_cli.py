"""`reelstream wallet deposit|withdraw|set-limit|self-exclude --operator O` act as O's cashier: the command names O, is
signed with cashier.<O>'s key, goes out as the cashier.<O> principal, and its answer is read from wallet.answers.<O>;
an unknown operator or a missing key is one line before anything is sent. Hand-written fakes stand in for the broker.

Scenario: a deposit with --operator demo-a is sent by a producer of role cashier.demo-a, carries a signature the
wallet binds to demo-a, and is answered from wallet.answers.demo-a; without --operator nothing changes (cashier,
wallet.events, no operator named).
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from datetime import datetime, timezone

import pytest
from kafka import TopicPartition

from reelstream.cli import run
from reelstream.commands import wallet
from shared import records, signing
from shared.events import decode, encode, envelope
from shared.events.wallet import Deposited, Posting, player_account
from shared.operators import OPERATORS
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS

A = OPERATORS[0]


@dataclass
class _Record:
    key: bytes
    value: bytes


class _Sent:
    def get(self, timeout: float) -> None:
        return None


class FakeBroker:
    """Records what each principal sends and reads; answers every command with a Deposited on the topic read."""

    def __init__(self) -> None:
        self.sent: list[tuple[str | None, str, bytes, bytes, list]] = []
        self.reader_roles: list[str | None] = []
        self.assigned: list[TopicPartition] = []
        self.answers: list[_Record] = []

    def producer(self, bootstrap: str, client_id: str, role: str | None = None) -> "FakeBroker._Writer":
        return FakeBroker._Writer(self, role)

    def consumer(self, bootstrap: str, group_id: None, role: str | None = None) -> "FakeBroker._Reader":
        self.reader_roles.append(role)
        return FakeBroker._Reader(self)

    class _Writer:
        def __init__(self, broker: "FakeBroker", role: str | None) -> None:
            self.broker, self.role = broker, role

        def send(self, topic: str, key: bytes, value: bytes, headers: list) -> _Sent:
            self.broker.sent.append((self.role, topic, key, value, headers))
            command = decode(value, expect_kind="command").data
            now = datetime.now(timezone.utc)
            answer = Deposited(
                transaction_id=command.transaction_id,
                player_id=command.player_id,
                recorded_at=now,
                currency=command.currency,
                postings=(
                    Posting(account=player_account(command.player_id), amount_micro=command.amount_minor * 10**6),
                    Posting(account="cashier", amount_micro=-command.amount_minor * 10**6),
                ),
                balance_after_minor=command.amount_minor,
                amount_minor=command.amount_minor,
            )
            self.broker.answers.append(_Record(key, encode(envelope(answer, source="fake-wallet", time=now))))
            return _Sent()

        def close(self, timeout: float) -> None:
            pass

    class _Reader:
        def __init__(self, broker: "FakeBroker") -> None:
            self.broker = broker

        def assign(self, partitions: list[TopicPartition]) -> None:
            self.broker.assigned += partitions
            self.partition = partitions[0]

        def seek_to_end(self, partition: TopicPartition) -> None:
            pass

        def position(self, partition: TopicPartition) -> int:
            return 0

        def poll(self, timeout_ms: int) -> dict:
            answers, self.broker.answers = self.broker.answers, []
            return {self.partition: answers} if answers else {}

        def close(self, autocommit: bool) -> None:
            pass


@pytest.fixture
def broker(monkeypatch) -> FakeBroker:
    fake = FakeBroker()
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    monkeypatch.setenv("REELSTREAM_TOPIC_PREFIX", "")
    monkeypatch.setattr(wallet, "producer", fake.producer)
    monkeypatch.setattr(wallet, "consumer", fake.consumer)
    return fake


def _signer(headers, value: bytes) -> str | None:
    """Who signed the CLI's command for p-1, as the wallet's one provenance check finds it."""
    return records.provenance(WALLET_COMMANDS, headers, value, b"p-1")[0]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_deposit_with_an_operator_is_signed_and_sent_as_its_cashier_and_read_from_its_topic(broker, keys):
    code, out, err = _run(["wallet", "deposit", "p-1", "2500", "--operator", A])
    assert code == 0, err
    assert "deposited" in out and "balance 25.00" in out
    ((role, topic, key, value, headers),) = broker.sent
    assert (role, topic, key) == (f"cashier.{A}", WALLET_COMMANDS, b"p-1")
    assert decode(value, expect_kind="command").data.operator_id == A
    assert records.provenance_problem(WALLET_COMMANDS, headers, value, key) is None
    assert records.cashier_operator(WALLET_COMMANDS, value, _signer(headers, value)) == A
    assert broker.reader_roles == [f"cashier.{A}"]
    assert [tp.topic for tp in broker.assigned] == [f"wallet.answers.{A}"]


def test_without_an_operator_the_plain_cashier_sends_and_reads_wallet_events(broker, keys):
    code, _, err = _run(["wallet", "deposit", "p-1", "2500"])
    assert code == 0, err
    ((role, _, _, value, headers),) = broker.sent
    assert role == "cashier"
    assert decode(value, expect_kind="command").data.operator_id is None
    assert records.cashier_operator(WALLET_COMMANDS, value, _signer(headers, value)) is None
    assert [tp.topic for tp in broker.assigned] == [WALLET_EVENTS]


@pytest.mark.parametrize(
    "argv",
    [
        ["wallet", "withdraw", "p-1", "100"],
        ["wallet", "set-limit", "p-1", "deposit", "day", "--amount-minor", "100"],
        ["wallet", "self-exclude", "p-1", "--days", "7"],
    ],
)
def test_every_cashier_command_takes_the_operator(monkeypatch, argv):
    sent = []
    monkeypatch.setattr(wallet, "_send_and_wait", lambda data, timeout_s, cashier: sent.append((data, cashier)))
    code, _, err = _run([*argv, "--operator", A])
    assert code == 0, err
    ((data, cashier),) = sent
    assert data.operator_id == A
    assert (cashier.role, cashier.answers_topic) == (f"cashier.{A}", f"wallet.answers.{A}")


def test_an_unknown_operator_is_one_line_and_exit_2(broker):
    code, _, err = _run(["wallet", "deposit", "p-1", "100", "--operator", "nope"])
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "unknown operator 'nope'" in err and A in err
    assert broker.sent == []


def test_a_missing_key_is_one_line_and_nothing_is_sent(broker, tmp_path, monkeypatch):
    folder = tmp_path / "only-the-plain-cashier"
    signing.generate(folder, writers=("cashier",))
    monkeypatch.setenv(signing.SIGNING_DIR_ENV, str(folder))
    code, _, err = _run(["wallet", "deposit", "p-1", "100", "--operator", A])
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert f"no signing key for cashier.{A}" in err and "reelstream infra up" in err
    assert broker.sent == [] and broker.reader_roles == []
