"""Transaction signatures: one Ed25519 signature per transaction over a Merkle tree of its records; any record
verifies alone, a forged, moved, altered or foreign-keyed record does not, and rotation keeps old keys accepted."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from shared import records, signing
from shared.events import encode, envelope
from shared.events.envelope import broker_time
from shared.events.wallet import DebitWager, Deposit


def _items(count: int) -> list[signing.Item]:
    return [
        signing.Item("wallet.events", f"p-{i}".encode(), f'{{"n": {i}}}'.encode(), records.headers_for("wallet"))
        for i in range(count)
    ]


@pytest.mark.parametrize("count", [1, 2, 3, 7, 64, 1001])
def test_every_record_of_a_transaction_verifies_alone_with_one_ed25519_check(keys, count):
    ring, signer = signing.load_ring(keys), signing.load_signer(keys, "wallet")
    items = _items(count)
    for item, headers in zip(items, signer.sign(items)):
        assert ring.problem("wallet", item.topic, item.key, item.value, headers) is None
    assert ring.verifies == 1


def test_an_altered_moved_or_re_keyed_record_does_not_verify(keys):
    ring, signer = signing.load_ring(keys), signing.load_signer(keys, "wallet")
    items = _items(5)
    headers = signer.sign(items)
    item = items[2]
    assert "does not verify" in ring.problem("wallet", item.topic, item.key, item.value + b" ", headers[2])
    assert "does not verify" in ring.problem("wallet", "spin.events", item.key, item.value, headers[2])
    assert "does not verify" in ring.problem("wallet", item.topic, b"p-other", item.value, headers[2])
    # Another record's path, or a header added after signing, leads to another (unsigned) root.
    assert ring.problem("wallet", item.topic, item.key, item.value, headers[3]) is not None
    assert ring.problem("wallet", item.topic, item.key, item.value, [*headers[2], ("x", b"1")]) is not None


def test_only_the_expected_writers_key_counts_and_unsigned_or_unknown_keys_are_named(keys):
    ring = signing.load_ring(keys)
    item = _items(1)[0]
    by_spin = signing.load_signer(keys, "spin").sign([item])[0]
    assert "signed by 'spin'" in ring.problem("wallet", item.topic, item.key, item.value, by_spin)
    assert "unsigned" in ring.problem("wallet", item.topic, item.key, item.value, item.headers)
    stranger = signing.Signer("wallet", "wallet-000000000000", signing.Ed25519PrivateKey.generate())
    forged = stranger.sign([item])[0]
    assert "unknown key id" in ring.problem("wallet", item.topic, item.key, item.value, forged)
    # The same key id with a key that is not the one the ring holds: the signature does not verify.
    impostor = signing.Signer(
        "wallet", signing.load_signer(keys, "wallet").key_id, signing.Ed25519PrivateKey.generate()
    )
    faked = impostor.sign([item])[0]
    assert "does not verify" in ring.problem("wallet", item.topic, item.key, item.value, faked)


def test_rotation_signs_with_the_new_key_and_keeps_the_old_one_accepted_until_retired(keys):
    item = _items(1)[0]
    old = signing.load_signer(keys, "wallet")
    before = old.sign([item])[0]
    new_id = signing.rotate(keys, "wallet")
    assert signing.load_signer(keys, "wallet").key_id == new_id != old.key_id
    assert signing.load_ring(keys).problem("wallet", item.topic, item.key, item.value, before) is None
    assert signing.retire(keys, new_id) is False, "a writer's current key is never retired"
    assert signing.retire(keys, old.key_id) is True
    assert "unknown key id" in signing.load_ring(keys).problem("wallet", item.topic, item.key, item.value, before)


def test_private_keys_are_owner_only_and_never_in_a_repr(keys):
    for writer in signing.WRITERS:
        assert os.stat(keys / f"{writer}.key.json").st_mode & 0o077 == 0
    signer = signing.load_signer(keys, "cashier")
    assert "private" not in repr(signer) and "cashier" in repr(signer)
    assert signing.generate(keys) == [], "idempotent"


def test_the_record_hook_requires_the_signature_of_each_commands_trusted_writer(keys):
    now = broker_time(1_800_000_000_000)
    deposit = envelope(
        Deposit(
            transaction_id="00000000-0000-0000-0000-000000000002", player_id="p-1", amount_minor=10, currency="EUR"
        ),
        source="t",
        time=now,
    )
    debit = envelope(
        DebitWager(
            transaction_id="00000000-0000-0000-0000-000000000001",
            player_id="p-1",
            amount_minor=10,
            currency="EUR",
            game="rising-joker",
        ),
        source="t",
        time=now,
    )
    for message, writer in ((deposit, "cashier"), (debit, "spin")):
        value = encode(message)
        good = records.headers_as_owner("wallet.commands", "test", message.key, value)
        assert records.writer_of(good) == writer
        assert records.provenance_problem("wallet.commands", good, value, message.key) is None
        # A principal allowed on the topic that sets the writer id but has no key of the writer's.
        assert "unsigned" in records.provenance_problem(
            "wallet.commands", records.headers_for(writer), value, message.key
        )
        other = "spin" if writer == "cashier" else "cashier"
        wrong = records.signed_headers(other, "wallet.commands", message.key, value)
        wrong = [(k, writer.encode() if k == "reelstream-writer" else v) for k, v in wrong]
        assert records.provenance_problem("wallet.commands", wrong, value, message.key) is not None


def test_without_a_signing_directory_nothing_is_signed_or_required(monkeypatch):
    monkeypatch.delenv(signing.SIGNING_DIR_ENV, raising=False)
    assert signing.ring() is None and signing.signer("wallet") is None
    assert records.provenance_problem("wallet.events", records.headers_for("wallet"), b"{}", b"k") is None


def test_a_re_driven_dead_letter_verifies_as_its_writers_record(keys):
    from shared.dead_letters import redrive_headers

    value = b'{"n": 1}'
    signed = records.signed_headers("wallet", "wallet.events", b"p-1", value, [("traceparent", b"00-ab-cd-01")])
    refused = SimpleNamespace(key=b"p-1", value=value, headers=signed, topic="wallet.events", partition=0, offset=7)
    letter = records.quarantined("wallet.events", "wallet.events", refused, "test", consumer="projector")
    again = redrive_headers(letter.headers, "wallet.events.dlq/0/1")
    assert records.provenance_problem("wallet.events", again, value, b"p-1") is None
    assert records.provenance_problem("wallet.events", again, value + b" ", b"p-1") is not None


def test_a_reader_accepts_a_rotated_key_without_a_restart(keys, monkeypatch):
    ring = signing.load_ring(keys)
    monkeypatch.setattr(signing, "_REREAD_S", 0.0)
    signing.rotate(keys, "wallet")
    item = _items(1)[0]
    headers = signing.load_signer(keys, "wallet").sign([item])[0]
    assert ring.problem("wallet", item.topic, item.key, item.value, headers) is None


def _tampered_batch(keys) -> list[signing.Check]:
    """Three transactions (1, 7 and 300 records) and a record of each kind of forgery among them, as (expected writer,
    topic, key, value, headers) checks in an order that interleaves the transactions."""
    wallet, spin = signing.load_signer(keys, "wallet"), signing.load_signer(keys, "spin")
    checks = []
    for count in (1, 7, 300):
        items = _items(count)
        checks += [("wallet", i.topic, i.key, i.value, h) for i, h in zip(items, wallet.sign(items))]
    _, topic, key, value, headers = checks[5]
    path = dict(headers)[signing.PATH]
    others = [(k, v) for k, v in headers if k != signing.PATH]
    forged = [
        ("wallet", topic, key, value + b" ", headers),  # altered value
        ("wallet", "spin.events", key, value, headers),  # moved to another topic
        ("wallet", topic, key, value, checks[6][4]),  # another record's path and signature
        ("wallet", topic, key, value, [*others, (signing.PATH, path[:-1])]),  # truncated path
        ("wallet", topic, key, value, [*others, (signing.PATH, b"\x02" + path[1:])]),  # bad side byte
        ("wallet", topic, key, value, [*others, (signing.PATH, path[: signing._STEP])]),  # path cut to one step
        ("wallet", topic, key, value, [*others, (signing.PATH, path[:-1] + bytes([path[-1] ^ 1]))]),  # last sibling
        ("wallet", topic, key, value, [(k, v) for k, v in headers if k != signing.SIGNATURE]),  # unsigned
        ("spin", topic, key, value, headers),  # signed by the wallet, only the spin may sign it
        ("wallet", *_one(spin, topic, key, value)),  # the spin's signature
    ]
    mixed = checks[::2] + forged + checks[1::2]
    return mixed + [
        ("wallet", topic, key, value, [(k, b"x" * 64 if k == signing.SIGNATURE else v) for k, v in headers])
    ]


def _one(signer, topic, key, value):
    return topic, key, value, signer.sign_one(topic, key, value, records.headers_for("wallet"))


def test_a_batch_check_gives_each_record_the_answer_of_the_check_alone(keys):
    checks = _tampered_batch(keys)
    alone = signing.load_ring(keys)
    expected = [alone.problem(*check) for check in checks]
    # Every forgery but the garbled signature, whose root is already verified (the root cache accepts it alone too).
    assert sum(problem is not None for problem in expected) == 10
    assert signing.load_ring(keys).problems(checks) == expected


def test_a_batch_check_hashes_a_transactions_shared_nodes_once(keys, monkeypatch):
    items = _items(1000)
    checks = [
        ("wallet", i.topic, i.key, i.value, h) for i, h in zip(items, signing.load_signer(keys, "wallet").sign(items))
    ]
    hashed = []
    real_node = signing._node
    monkeypatch.setattr(signing, "_node", lambda left, right: hashed.append(1) or real_node(left, right))
    alone = signing.load_ring(keys)
    assert [alone.problem(*check) for check in checks] == [None] * 1000
    per_record, hashed[:] = len(hashed), []
    ring = signing.load_ring(keys)
    assert ring.problems(checks[::-1]) == [None] * 1000
    assert ring.verifies == 1
    assert per_record == sum(len(dict(check[4])[signing.PATH]) // signing._STEP for check in checks) > 9_900
    # Each inner node is hashed twice at most: by the first record read under each of its two children.
    assert len(hashed) <= 2 * 999


def test_a_batch_check_names_exactly_the_tampered_record_of_a_transaction(keys):
    items = _items(64)
    checks = [
        ("wallet", i.topic, i.key, i.value, h) for i, h in zip(items, signing.load_signer(keys, "wallet").sign(items))
    ]
    expected, topic, key, value, headers = checks[37]
    checks[37] = (expected, topic, key, value.replace(b"37", b"73"), headers)
    found = signing.load_ring(keys).problems(checks)
    assert [index for index, problem in enumerate(found) if problem is not None] == [37]
    assert "does not verify" in found[37]


def test_a_batch_check_shares_nothing_between_key_ids(keys):
    items = _items(4)
    signed_before = signing.load_signer(keys, "wallet").sign(items)
    signing.rotate(keys, "wallet")
    rotated = signing.load_signer(keys, "wallet").sign(items)  # the same tree, so the same root, under the new key
    garbled = [(k, b"x" * 64 if k == signing.SIGNATURE else v) for k, v in rotated[1]]
    checks = [
        ("wallet", items[0].topic, items[0].key, items[0].value, signed_before[0]),
        ("wallet", items[1].topic, items[1].key, items[1].value, garbled),
    ]
    expected = [signing.load_ring(keys).problem(*check) for check in checks]
    assert expected[0] is None
    assert "does not verify" in expected[1]
    assert signing.load_ring(keys).problems(checks) == expected


def test_a_records_digest_never_changes():
    """Records signed once are kept forever: these digests were computed before the digest's code last changed."""
    headers = [
        ("content-type", b"application/cloudevents+json"),
        ("reelstream-writer", b"wallet"),
        (signing.SIGNATURE, b"x"),  # not covered
        ("z-extra", None),  # covered, as empty
    ]
    digest = signing.record_digest("wallet.events", b"p-1", b'{"n": 1}', headers)
    assert digest.hex() == "309e4130cb9d5d291055010c2421164557438536812f216e0e99e2008f9dd9ec"
    assert signing.record_digest("spin.events", None, None, None).hex() == (
        "17756f17275b14ad31d2e485d7cebb26b128649df0f2d9818560de9342cdb43c"
    )
