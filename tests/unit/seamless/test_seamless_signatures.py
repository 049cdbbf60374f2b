"""RSA-SHA256 body signatures: what a wallet's key ring accepts, through a key rotation, and what it refuses."""

from __future__ import annotations

import pytest

from seamless.exceptions import SeamlessError
from seamless.signatures import RING_KEYS_MAX, KeyRing, Signer

OLD = Signer.generate("k1")
NEW = Signer.generate("k2")
STRANGER = Signer.generate("k1")  # claims the old key's id
BODY = b'{"user":"p-1","amount":100000}'


def ring(*signers: Signer) -> KeyRing:
    return KeyRing.from_pems({signer.key_id: signer.public_pem() for signer in signers})


def test_a_body_signed_by_a_key_of_the_ring_is_accepted_by_its_id_and_without_one():
    keys = ring(OLD)
    assert keys.verify(BODY, OLD.sign(BODY), "k1")
    assert keys.verify(BODY, OLD.sign(BODY), None)


def test_during_a_rotation_both_keys_are_accepted_and_after_it_only_the_new_one():
    during, after = ring(OLD, NEW), ring(NEW)
    assert during.verify(BODY, OLD.sign(BODY), "k1")
    assert during.verify(BODY, NEW.sign(BODY), "k2")
    assert after.verify(BODY, NEW.sign(BODY), "k2")
    assert not after.verify(BODY, OLD.sign(BODY), "k1")
    assert not after.verify(BODY, OLD.sign(BODY), None)


def test_a_tampered_body_is_refused():
    signature = OLD.sign(BODY)
    assert not ring(OLD).verify(BODY.replace(b"100000", b"900000"), signature, "k1")


def test_a_signature_under_the_wrong_id_or_by_an_unknown_key_is_refused():
    keys = ring(OLD, NEW)
    assert not keys.verify(BODY, NEW.sign(BODY), "k1")
    assert not keys.verify(BODY, STRANGER.sign(BODY), "k1")
    assert not keys.verify(BODY, OLD.sign(BODY), "k9")


@pytest.mark.parametrize("signature", [None, "", "not base64!", "QUJD", "A" * 10_000])
def test_a_missing_or_malformed_signature_is_refused(signature):
    assert not ring(OLD).verify(BODY, signature, "k1")


def test_a_ring_is_bounded():
    with pytest.raises(SeamlessError):
        KeyRing({f"k{i}": OLD.private_key.public_key() for i in range(RING_KEYS_MAX + 1)})


def test_a_private_key_round_trips_through_pem():
    again = Signer.from_pem("k1", OLD.private_pem())
    assert ring(OLD).verify(BODY, again.sign(BODY), "k1")
