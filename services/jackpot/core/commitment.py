"""Provably fair drop points: a value drawn from the randomness passed in (the OS CSPRNG live), committed as
SHA-256(value ‖ salt), sealed for restores under the jackpot service's own key (AES-256-GCM) and revealed at the drop.

Anyone re-checks a reveal with `shared.pools.commitment.reveal_matches` (the public half).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from shared.invariant import invariant
from shared.pools.commitment import SALT_BYTES, VALUE_BYTES, commitment_of, reveal_matches

KEY_BYTES = 32
_NONCE_BYTES = 12
__all__ = ["DropSecrets", "SealBroken", "commitment_of", "reveal_matches", "uniform_below", "KEY_BYTES"]


class SealBroken(ValueError):
    """A sealed drop point that this key does not open (a wrong key, or bytes changed after sealing)."""


def uniform_below(entropy: Callable[[int], bytes], n: int) -> int:
    """A uniform integer in [0, n) by bitmask rejection sampling on 64-bit words (never `% n`)."""
    invariant(1 <= n <= 1 << 63, "a drop range holds 1 .. 2**63 values")
    mask = (1 << (n - 1).bit_length()) - 1
    while True:
        value = int.from_bytes(entropy(8), "big") & mask
        if value < n:
            return value


@dataclass(frozen=True)
class DropSecrets:
    """The jackpot's drop key and its randomness (os.urandom live): everything the core needs to draw and read."""

    key: bytes
    entropy: Callable[[int], bytes]

    def __post_init__(self) -> None:
        invariant(len(self.key) == KEY_BYTES, "the drop key is 256 bits")

    def draw(self, low: int, high: int) -> tuple[int, bytes]:
        """A value uniform in [low, high) and a fresh salt."""
        invariant(low < high, "a drop range is not empty")
        value = low + uniform_below(self.entropy, high - low)
        salt = self.entropy(SALT_BYTES)
        invariant(len(salt) == SALT_BYTES, "the entropy source gave a short salt")
        return value, salt

    def seal(self, value: int, salt: bytes, context: str) -> str:
        nonce = self.entropy(_NONCE_BYTES)
        sealed = AESGCM(self.key).encrypt(nonce, value.to_bytes(VALUE_BYTES, "big") + salt, context.encode())
        return base64.b64encode(nonce + sealed).decode()

    def open(self, sealed: str, context: str) -> tuple[int, bytes]:
        raw = base64.b64decode(sealed)
        try:
            plain = AESGCM(self.key).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context.encode())
        except InvalidTag as error:
            raise SealBroken(f"sealed drop point of {context} does not open with this key") from error
        return int.from_bytes(plain[:VALUE_BYTES], "big"), plain[VALUE_BYTES:]
