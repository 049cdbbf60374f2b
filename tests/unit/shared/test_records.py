"""The record module: who may write what, quarantine and dead letters in one vocabulary, no bearer token kept."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import pytest

from shared import records
from shared.dead_letters import origin_of, redrive_headers
from shared.events import DecodeError, encode, envelope
from shared.events.envelope import broker_time
from shared.events.spin import SpinRequested
from shared.events.wallet import DebitWager, Deposit

# A genuine token's shape (`issue_token`): longer than its `sha256:<hex>` marker, as every genuine token is.
TOKEN = "v2.2e4e6ff5.cC0x.1800000000000.SOROjGoi1lTJKKrYWBWlhvDkTHhAdJjhQG_vCnLuwjA"


def _message(data) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(1_800_000_000_000)))


def _record(value: bytes, headers=(), topic="t.spin.requests"):
    return SimpleNamespace(key=b"p-1", value=value, headers=list(headers), topic=topic, partition=3, offset=41)


def test_each_service_topic_is_trusted_only_from_its_own_writer():
    assert records.provenance_problem("wallet.events", records.headers_for("wallet")) is None
    assert "'wallet'" in records.provenance_problem("wallet.events", records.headers_for("spin"))
    assert "no writer id" in records.provenance_problem("spin.journal", [("content-type", b"x")])


def test_internal_commands_must_come_from_the_spin_service_and_cashier_commands_may_come_from_anyone():
    debit = _message(
        DebitWager(
            transaction_id="00000000-0000-0000-0000-000000000001",
            player_id="p-1",
            amount_minor=10,
            currency="EUR",
            game="rising-joker",
        )
    )
    deposit = _message(
        Deposit(transaction_id="00000000-0000-0000-0000-000000000002", player_id="p-1", amount_minor=10, currency="EUR")
    )
    assert records.provenance_problem("wallet.commands", records.headers_for("spin"), debit) is None
    assert records.provenance_problem("wallet.commands", records.headers_for("cashier"), debit) is not None
    assert records.provenance_problem("wallet.commands", [], deposit) is None


@pytest.mark.parametrize("value", [b"[1, 2]", b"42", b'"text"', b"null", b"\xff\xfe", b""])
def test_the_type_peek_never_raises_on_any_bytes(value):
    assert records.peek_type(value) is None


def test_a_dead_letter_names_code_reason_origin_and_consumer_and_keeps_the_bytes():
    letter = records.dead_letter(
        "spin.requests",
        "t.spin.requests",
        _record(b"{broken", records.headers_for("x")),
        code="UNDECODABLE",
        reason="not JSON",
        consumer="spin",
    )
    origin = origin_of(letter.headers)
    assert letter.topic == "spin.requests.dlq"
    assert letter.value == b"{broken"
    assert (origin.code, origin.reason, origin.consumer) == ("UNDECODABLE", "not JSON", "spin")
    assert (origin.topic, origin.partition, origin.offset) == ("t.spin.requests", 3, 41)
    assert records.writer_of(letter.headers) == "spin"
    assert dict(letter.headers)["reelstream-dlq-writer"] == b"x"


def test_a_re_driven_dead_letter_is_only_as_trusted_as_the_writer_it_came_with():
    letter = records.quarantined(
        "wallet.events",
        "wallet.events",
        _record(b"{}", records.headers_for("attacker")),
        "written by 'attacker'",
        consumer="projector",
    )
    again = redrive_headers(letter.headers, "wallet.events.dlq/0/1")
    assert records.writer_of(again) == "attacker"
    assert records.provenance_problem("wallet.events", again) is not None


def test_a_dead_letter_keeps_no_bearer_token_only_its_hash():
    request = _message(
        SpinRequested(
            request_id="00000000-0000-0000-0000-000000000003",
            player_id="p-1",
            game="rising-joker",
            stake_minor=10,
            currency="EUR",
            session_token=TOKEN,
        )
    )
    for value in (request, request[:-3] + b"!!!"):  # valid, and broken after the token
        letter = records.undecodable(
            "spin.requests", "spin.requests", _record(value), DecodeError("$", "bad"), consumer="spin"
        )
        assert TOKEN.encode() not in letter.value
        assert hashlib.sha256(TOKEN.encode()).hexdigest().encode() in letter.value
