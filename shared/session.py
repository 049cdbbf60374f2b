"""Signed session tokens: HMAC-SHA256 over (player id, expiry), checked against a record's broker time.

Format (ASCII, URL-safe): `v1.<player id, base64url>.<expiry, ms since the epoch>.<HMAC-SHA256, base64url>`. The
token is a bearer secret: never log it, never copy it into an event. The secret is REELSTREAM_SESSION_SECRET.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from enum import Enum

from shared.invariant import invariant

_VERSION = "v1"
MAX_TTL_S = 7 * 24 * 3600


class TokenProblem(str, Enum):
    MALFORMED = "malformed"
    FORGED = "bad signature"
    FOREIGN = "issued to another player"
    EXPIRED = "expired"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: str, body: str) -> str:
    return _b64(hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest())


def issue_token(secret: str, player_id: str, expires_at_ms: int) -> str:
    """A token that lets `player_id` spin until `expires_at_ms` (exclusive, broker time)."""
    invariant(bool(secret), "a session secret is required")
    invariant(bool(player_id), "a player id is required")
    invariant(expires_at_ms > 0, "expiry must be a positive epoch time in ms")
    body = f"{_VERSION}.{_b64(player_id.encode())}.{expires_at_ms}"
    return f"{body}.{_signature(secret, body)}"


def token_problem(secret: str, token: str, player_id: str, now_ms: int) -> TokenProblem | None:
    """None when the token is genuine, bound to `player_id` and not expired at `now_ms`; else what is wrong."""
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != _VERSION or not parts[2].isdigit():
        return TokenProblem.MALFORMED
    body = ".".join(parts[:3])
    # As bytes: compare_digest refuses str with non-ASCII characters (a TypeError that stopped the spin service).
    if not hmac.compare_digest(_signature(secret, body).encode(), parts[3].encode()):
        return TokenProblem.FORGED
    try:
        owner = _unb64(parts[1]).decode()
    except (ValueError, UnicodeDecodeError):
        return TokenProblem.MALFORMED
    if owner != player_id:
        return TokenProblem.FOREIGN
    if now_ms >= int(parts[2]):
        return TokenProblem.EXPIRED
    return None
