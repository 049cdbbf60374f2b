"""The audit takes an operator's cashier signature (`cashier.<O>`'s key) as a cashier signature, and names a deposit
that claims an operator's cashier without that key's valid signature as an impersonation, as it names one claiming
the cashier."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from services.audit.core.collect import RawRecord
from services.audit.core.trust import untrusted_commands
from shared import records
from shared.events import encode, envelope
from shared.events.wallet import Deposit
from shared.operators import OPERATORS, cashier_role
from shared.topics import WALLET_COMMANDS

A = OPERATORS[0]


def _deposit(headers_of) -> RawRecord:
    data = Deposit(transaction_id=uuid.uuid4(), player_id="p-1", amount_minor=500, currency="EUR")
    value = encode(envelope(data, source="test", time=datetime(2026, 12, 2, tzinfo=timezone.utc)))
    return RawRecord(WALLET_COMMANDS, 0, 0, 0, b"p-1", value, tuple(headers_of(value)))


def test_a_deposit_signed_with_an_operators_cashier_key_is_no_finding(keys):
    signed = _deposit(lambda value: records.signed_headers(cashier_role(A), WALLET_COMMANDS, b"p-1", value))
    assert untrusted_commands([signed]) == []


@pytest.mark.parametrize("claimed", ["cashier", cashier_role(A)])
def test_a_deposit_claiming_a_cashier_without_its_signature_is_an_impersonation(keys, claimed):
    unsigned = _deposit(lambda value: records.headers_for(claimed))
    (finding,) = untrusted_commands([unsigned])
    assert "unsigned" in finding.detail and "'cashier'" in finding.detail


def test_a_deposit_claiming_an_operators_cashier_signed_with_another_writers_key_is_an_impersonation(keys):
    forged = _deposit(
        lambda value: [
            (k, cashier_role(A).encode() if k == "reelstream-writer" else v)
            for k, v in records.signed_headers("operator", WALLET_COMMANDS, b"p-1", value)
        ]
    )
    (finding,) = untrusted_commands([forged])
    assert "signed by 'operator'" in finding.detail
