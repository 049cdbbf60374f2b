"""The published cashier signature vector (docs/contract/conformance/cashier-signature.json, which the Go and Node.js
example clients' tests sign again) is what shared/signing.py makes and accepts: the digest, the root and the signature
of one record signed alone, and a key ring holding the vector's public key verifies it as the cashier's, bound to its
operator."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from shared import records, signing

VECTOR_FILE = Path(__file__).resolve().parents[3] / "docs" / "contract" / "conformance" / "cashier-signature.json"


def _vector():
    vector = json.loads(VECTOR_FILE.read_text())
    private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(vector["key_file"]["private_key"]))
    headers = [(name, content.encode()) for name, content in vector["headers"]]
    return vector, private, headers


def test_the_vectors_digest_root_and_signature_are_what_the_platform_makes():
    vector, private, headers = _vector()
    key, value, topic = vector["key"].encode(), vector["value"].encode(), vector["logical_topic"]
    writer = vector["key_file"]["writer"]
    assert headers == records.headers_for(writer)
    assert vector["key_file"]["key_id"] == signing.key_id_of(writer, private.public_key())
    digest = signing.record_digest(topic, key, value, headers)
    assert digest.hex() == vector["digest_hex"]
    root, (path,) = signing.merkle([digest])
    assert (root.hex(), path) == (vector["root_hex"], b"")
    signed = dict(signing.Signer(writer, vector["key_file"]["key_id"], private).sign_one(topic, key, value, headers))
    assert base64.b64encode(signed[signing.SIGNATURE]).decode() == vector["signature_base64"]


def test_a_ring_with_the_vectors_key_accepts_it_as_the_cashier_and_refuses_it_altered():
    vector, private, headers = _vector()
    writer, kid = vector["key_file"]["writer"], vector["key_file"]["key_id"]
    ring = signing.KeyRing({kid: (writer, private.public_key())})
    signed = headers + [
        (signing.KEY_ID, kid.encode()),
        (signing.SIGNATURE, base64.b64decode(vector["signature_base64"])),
        (signing.PATH, b""),
    ]
    key, value = vector["key"].encode(), vector["value"].encode()
    assert ring.problem("cashier", vector["logical_topic"], key, value, signed) is None
    assert ring.problem("cashier", vector["logical_topic"], key, value.replace(b"2500", b"2501"), signed) is not None
