"""The spin RNG: a 256-bit seed expanded by the ChaCha20 keystream (RFC 7539), mapped to ranges by rejection.

Reproducible from the seed alone, in any language: key = the 32-byte seed, 16-byte initial counter+nonce block
of zeros, keystream read as consecutive little-endian unsigned 64-bit words. `below(n)` takes the low
`bit_length(n - 1)` bits of one word and rejects values >= n (no modulo, so no bias).
"""

from __future__ import annotations

import struct

from cryptography.hazmat.primitives.ciphers import Cipher
from cryptography.hazmat.primitives.ciphers.algorithms import ChaCha20

from shared.invariant import invariant

SEED_BYTES = 32
_BLOCK_WORDS = 64
_ZERO_BLOCK = bytes(8 * _BLOCK_WORDS)
_UNPACK_BLOCK = struct.Struct(f"<{_BLOCK_WORDS}Q").unpack


class SpinRng:
    """Deterministic draws from a seed; `draws` counts the 64-bit words consumed (recorded for audits)."""

    def __init__(self, seed: bytes) -> None:
        invariant(isinstance(seed, bytes), "seed must be bytes")
        invariant(len(seed) == SEED_BYTES, "seed must be exactly 32 bytes (256 bits)")
        self._encryptor = Cipher(ChaCha20(seed, bytes(16)), mode=None).encryptor()
        self._words: tuple[int, ...] = ()
        self._index = 0
        self.draws = 0

    @classmethod
    def from_hex(cls, seed_hex: str) -> "SpinRng":
        return cls(bytes.fromhex(seed_hex))

    def next_u64(self) -> int:
        if self._index == len(self._words):
            block = self._encryptor.update(_ZERO_BLOCK)
            self._words = _UNPACK_BLOCK(block)
            self._index = 0
        word = self._words[self._index]
        self._index += 1
        self.draws += 1
        return word

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by bitmask rejection sampling."""
        invariant(n >= 1, "range must hold at least one value")
        if n == 1:
            return 0
        mask = (1 << (n - 1).bit_length()) - 1
        while True:
            value = self.next_u64() & mask
            if value < n:
                return value

    def weighted(self, weights: tuple[int, ...] | list[int]) -> int:
        """An index drawn with probability weights[i] / sum(weights); weights are integers."""
        total = sum(weights)
        invariant(total > 0, "weights must not all be zero")
        point = self.below(total)
        for index, weight in enumerate(weights):
            if point < weight:
                return index
            point -= weight
        raise AssertionError("unreachable: point < total")
