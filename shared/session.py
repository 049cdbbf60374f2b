"""Signed session tokens: HMAC-SHA256 over (key id, player id, expiry), checked against a record's broker time; key
rings, rotation and operators' keys: docs/security.md, "Session tokens"."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from enum import Enum

from shared.invariant import invariant

_VERSION = "v2"
MAX_TTL_S = 7 * 24 * 3600
MAX_TOKEN_CHARS = 1024
MIN_SECRET_CHARS = 16
_KID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_OPERATOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class TokenProblem(str, Enum):
    MALFORMED = "malformed"
    UNKNOWN_KEY = "signed with a key that is not accepted (rotated out or never issued)"
    FORGED = "bad signature"
    FOREIGN = "issued to another player"
    EXPIRED = "expired"


class SessionKeyError(ValueError):
    """The session key configuration is unusable (the message says why, never the secret)."""


@dataclass(frozen=True)
class KeyRing:
    keys: tuple[tuple[str, bytes], ...]  # (key id, secret), the signing key first
    owners: tuple[tuple[str, str], ...] = ()  # (key id, operator id) of the keys that belong to an operator

    def __post_init__(self) -> None:
        invariant(bool(self.keys), "a key ring holds at least one key")

    def __repr__(self) -> str:
        return f"KeyRing(kids={[kid for kid, _ in self.keys]})"

    @property
    def signing_kid(self) -> str:
        return self.keys[0][0]

    def secret(self, kid: str) -> bytes | None:
        return next((secret for known, secret in self.keys if known == kid), None)

    def operator_of(self, kid: str) -> str | None:
        return dict(self.owners).get(kid)

    def of_operator(self, operator_id: str | None) -> KeyRing:
        """The keys `operator_id` signs with (None: the keys of no operator), newest first. Raises SessionKeyError."""
        keys = tuple((kid, secret) for kid, secret in self.keys if self.operator_of(kid) == operator_id)
        if not keys:
            raise SessionKeyError(f"no session key of operator {operator_id!r} in the ring")
        return KeyRing(keys, tuple((kid, op) for kid, op in self.owners if op == operator_id))


def derived_kid(secret: str) -> str:
    return hashlib.sha256(b"reelstream-session-kid:" + secret.encode()).hexdigest()[:8]


def key_ring(text: str) -> KeyRing:
    """Parse `kid:secret[,kid:secret...]` (newest first) or one bare secret. Raises SessionKeyError."""
    text = text.strip()
    if not text:
        raise SessionKeyError(
            "no session key: set REELSTREAM_SESSION_KEYS or REELSTREAM_SESSION_SECRET "
            "(`reelstream infra up` writes a random one into .reelstream/env)"
        )
    entries = [entry.split(":", 1) if ":" in text else [derived_kid(entry), entry] for entry in text.split(",")]
    keys, owners = [], []
    for named, secret in entries:
        kid, _, operator_id = named.partition("@")
        if operator_id:
            if not _OPERATOR.match(operator_id):
                raise SessionKeyError(f"session key {kid}'s operator id {operator_id!r} is not an operator id")
            owners.append((kid, operator_id))
        if not _KID.match(kid):
            raise SessionKeyError(f"session key id {kid!r} must be 1-32 characters of [A-Za-z0-9_-]")
        if len(secret) < MIN_SECRET_CHARS:
            raise SessionKeyError(f"session key {kid} is shorter than {MIN_SECRET_CHARS} characters")
        if any(kid == known for known, _ in keys):
            raise SessionKeyError(f"session key id {kid} appears twice")
        keys.append((kid, secret.encode()))
    return KeyRing(tuple(keys), tuple(owners))


def ring_text(ring: KeyRing) -> str:
    """The REELSTREAM_SESSION_KEYS value of a ring (for `reelstream session rotate`)."""

    def named(kid: str) -> str:
        operator_id = ring.operator_of(kid)
        return f"{kid}@{operator_id}" if operator_id else kid

    return ",".join(f"{named(kid)}:{secret.decode()}" for kid, secret in ring.keys)


def _ring(keys: KeyRing | str) -> KeyRing:
    return keys if isinstance(keys, KeyRing) else key_ring(keys)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: bytes, body: bytes) -> bytes:
    return _b64(hmac.new(secret, body, hashlib.sha256).digest()).encode()


def issue_token(keys: KeyRing | str, player_id: str, expires_at_ms: int, operator_id: str | None = None) -> str:
    """A token that lets `player_id` spin until `expires_at_ms` (exclusive, broker time), signed with the newest key
    (of `operator_id`: its spins are then that operator's; None: of no operator)."""
    ring = _ring(keys)
    if operator_id is not None or ring.owners:
        ring = ring.of_operator(operator_id)
    invariant(bool(player_id), "a player id is required")
    invariant(expires_at_ms > 0, "expiry must be a positive epoch time in ms")
    body = f"{_VERSION}.{ring.signing_kid}.{_b64(player_id.encode())}.{expires_at_ms}"
    return f"{body}.{_signature(ring.keys[0][1], body.encode()).decode()}"


def token_problem(keys: KeyRing | str, token: str, player_id: str, now_ms: int) -> TokenProblem | None:
    """None when the token is genuine, bound to `player_id` and not expired at `now_ms`; else what is wrong."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS or not token.isascii():
        return TokenProblem.MALFORMED
    parts = token.split(".")
    if len(parts) != 5 or parts[0] != _VERSION or not parts[3].isdigit() or not _KID.match(parts[1]):
        return TokenProblem.MALFORMED
    secret = _ring(keys).secret(parts[1])
    if secret is None:
        return TokenProblem.UNKNOWN_KEY
    body = ".".join(parts[:4]).encode()
    if not hmac.compare_digest(_signature(secret, body), parts[4].encode()):
        return TokenProblem.FORGED
    try:
        owner = _unb64(parts[2]).decode()
    except (ValueError, UnicodeDecodeError):
        return TokenProblem.MALFORMED
    if owner != player_id:
        return TokenProblem.FOREIGN
    if now_ms >= int(parts[3]):
        return TokenProblem.EXPIRED
    return None


def token_operator(keys: KeyRing | str, token: str) -> str | None:
    """The operator whose key signed `token` (None: a key of no operator, or no readable key id). Check the token
    with `token_problem` first: this reads the key id only."""
    parts = token.split(".") if isinstance(token, str) and len(token) <= MAX_TOKEN_CHARS else []
    return _ring(keys).operator_of(parts[1]) if len(parts) == 5 else None
