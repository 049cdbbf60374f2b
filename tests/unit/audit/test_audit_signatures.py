"""The audit's signature check reads a whole history at once (the key ring's batch check) and still names each
record that does not verify, and only it.

Scenario: the synthetic history of the tampering tests, signed as its writers sign it (each writer's records in
transactions of up to 1,000); one record in the middle of a transaction is then altered, or given a neighbour's
inclusion path, after signing, and the audit reads the lot.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.synthetic.spins import play_history, stand_in_lookup
from services.audit.core.audit import run_audit
from services.audit.core.collect import RawRecord
from services.audit.core.scope import Scope
from services.audit.core.trust import CHECK
from shared import signing
from shared.events import encode
from shared.records import stand_in_batch


@pytest.fixture(scope="module")
def history():
    return play_history(seed=7)


@pytest.fixture
def signed(history, tmp_path, monkeypatch) -> list[RawRecord]:
    signing.generate(tmp_path / "signing")
    monkeypatch.setenv(signing.SIGNING_DIR_ENV, str(tmp_path / "signing"))
    items = [(item.topic, item.envelope.key, encode(item.envelope)) for item in history.emitted]
    offsets: dict[str, int] = {}
    out = []
    for item, (topic, key, value), headers in zip(history.emitted, items, stand_in_batch(items, "test")):
        offset = offsets.get(topic, 0)
        out.append(RawRecord(topic, 0, offset, item.timestamp_ms, key, value, tuple(headers)))
        offsets[topic] = offset + 1
    return out


def untrusted(result) -> list[str]:
    return [finding.where for finding in result.discrepancies if finding.check == CHECK]


def test_a_signed_history_verifies_whole_with_one_ed25519_check_per_transaction(signed):
    result = run_audit(signed, Scope(), lookup=stand_in_lookup)
    assert result.discrepancies == []
    assert result.facts.quarantined == []
    transactions = {dict(record.headers)[signing.SIGNATURE] for record in signed}
    assert signing.ring().verifies == len(transactions) > 1


def test_one_altered_record_in_a_transaction_is_the_one_named(signed):
    debits = [
        i for i, record in enumerate(signed) if record.topic == "wallet.events" and b"wager-debited" in record.value
    ]
    index = debits[len(debits) // 2]
    target = signed[index]
    tampered = list(signed)
    tampered[index] = replace(
        target, value=target.value.replace(b'"balance_after_minor":', b'"balance_after_minor":9', 1)
    )
    assert tampered[index].value != target.value
    result = run_audit(tampered, Scope(), lookup=stand_in_lookup)
    assert untrusted(result) == [target.where]
    assert [item.where for item in result.facts.quarantined] == [target.where]
    assert "does not verify" in result.facts.quarantined[0].problem


def test_a_record_given_its_neighbours_inclusion_path_is_the_one_named(signed):
    wallet = [i for i, record in enumerate(signed) if record.topic == "wallet.events"]
    index, neighbour = wallet[len(wallet) // 2], wallet[len(wallet) // 2 + 1]
    path = dict(signed[neighbour].headers)[signing.PATH]
    target = signed[index]
    tampered = list(signed)
    tampered[index] = replace(target, headers=tuple((k, path if k == signing.PATH else v) for k, v in target.headers))
    result = run_audit(tampered, Scope(), lookup=stand_in_lookup)
    assert untrusted(result) == [target.where]
    assert [item.where for item in result.facts.quarantined] == [target.where]
