"""RSA-SHA256 signatures of request bodies (PKCS#1 v1.5, base64 in a header), and the ring of public keys a wallet
accepts by key id, so a caller's key can be rotated: the new key is added, the caller switches, the old one retired."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from seamless.exceptions import SeamlessError

KEY_BITS = 2048
# A ring holds the current key and the ones being rotated in or out, no more: an unnamed signature is tried against
# each, and the cost of a refused request must stay small.
RING_KEYS_MAX = 4
SIGNATURE_CHARS_MAX = 4096


@dataclass(frozen=True)
class Signer:
    """The caller's private key and the id the wallet knows its public half by."""

    key_id: str
    private_key: rsa.RSAPrivateKey

    @classmethod
    def generate(cls, key_id: str) -> Signer:
        return cls(key_id, rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS))

    @classmethod
    def from_pem(cls, key_id: str, pem: bytes) -> Signer:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise SeamlessError(f"key {key_id!r} is not an RSA private key")
        return cls(key_id, key)

    def sign(self, body: bytes) -> str:
        return base64.b64encode(self.private_key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode("ascii")

    def private_pem(self) -> bytes:
        return self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    def public_pem(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


class KeyRing:
    """The public keys a wallet accepts, by id."""

    def __init__(self, keys: Mapping[str, rsa.RSAPublicKey]):
        if len(keys) > RING_KEYS_MAX:
            raise SeamlessError(f"a key ring holds at most {RING_KEYS_MAX} keys, not {len(keys)}")
        self.keys = MappingProxyType(dict(keys))

    @classmethod
    def from_pems(cls, pems: Mapping[str, bytes]) -> KeyRing:
        keys = {}
        for key_id, pem in pems.items():
            key = serialization.load_pem_public_key(pem)
            if not isinstance(key, rsa.RSAPublicKey):
                raise SeamlessError(f"key {key_id!r} is not an RSA public key")
            keys[key_id] = key
        return cls(keys)

    def verify(self, body: bytes, signature: str | None, key_id: str | None = None) -> bool:
        """True when `signature` is a valid signature of `body` by the key `key_id`, or, with no id, by any key."""
        if not signature or len(signature) > SIGNATURE_CHARS_MAX:
            return False
        try:
            raw = base64.b64decode(signature, validate=True)
        except (binascii.Error, ValueError):
            return False
        if key_id is not None:
            candidates = [self.keys[key_id]] if key_id in self.keys else []
        else:
            candidates = list(self.keys.values())
        return any(_valid(key, body, raw) for key in candidates)


def _valid(key: rsa.RSAPublicKey, body: bytes, raw: bytes) -> bool:
    try:
        key.verify(raw, body, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return False
    return True
