"""The public half of a must-drop pool's commitment: SHA-256 over the drop value (8 bytes, big-endian) followed by the
256-bit salt. The jackpot commits with it, the audit and the players' verifier re-check every reveal with it."""

from __future__ import annotations

import hashlib

SALT_BYTES = 32
VALUE_BYTES = 8


def commitment_of(value: int, salt: bytes) -> str:
    if not 0 <= value < 1 << 63:
        raise ValueError("a drop value fits a signed 64-bit integer")
    if len(salt) != SALT_BYTES:
        raise ValueError("a salt is 256 bits")
    return hashlib.sha256(value.to_bytes(VALUE_BYTES, "big") + salt).hexdigest()


def reveal_matches(commitment: str, value: int, salt_hex: str) -> bool:
    """Whether a reveal (value, salt) is the one committed to."""
    try:
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        return False
    if len(salt) != SALT_BYTES or not 0 <= value < 1 << 63:
        return False
    return commitment_of(value, salt) == commitment
