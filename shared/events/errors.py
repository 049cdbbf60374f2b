"""The one error type of the event codec: names the field that failed and why."""

from __future__ import annotations

import uuid
from typing import Any

# What a broken record's data may offer its rejection: scalars only (a container could be nested a thousand deep).
_SCALARS = (str, int, float, bool)


class DecodeError(ValueError):
    """A record that is not a valid message of the contract.

    `field` is a dotted path such as "data.stake_minor" ("$" for the whole record); `raw` holds the parsed JSON object
    when the bytes were at least JSON, so a handler can still name the player or request in its rejection.
    """

    def __init__(self, field: str, reason: str, raw: dict[str, Any] | None = None) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
        self.raw = raw

    def readable_player(self, record_key: bytes | None, *, or_key: bool = False) -> str | None:
        """Whom to answer for a broken record: its data's player id when valid and matching the record key (or no
        key); with `or_key`, else the record key when it is a valid player id (a client waiting for an answer is
        found by the key it sent under); else None."""
        from shared.events.base import ID_PATTERN

        player_id = self.readable("player_id")
        if isinstance(player_id, str) and ID_PATTERN.match(player_id) and record_key in (None, player_id.encode()):
            return player_id
        if not or_key:
            return None
        try:
            keyed = record_key.decode("ascii") if record_key is not None else None
        except UnicodeDecodeError:
            return None
        return keyed if keyed is not None and ID_PATTERN.match(keyed) else None

    def readable(self, key: str) -> str | int | float | bool | None:
        """A top-level data attribute of the broken record when it is a scalar (else None): never a container, which a
        hostile writer can nest as deep as the JSON parser goes."""
        if not isinstance(self.raw, dict):
            return None
        data = self.raw.get("data")
        value = data.get(key) if isinstance(data, dict) else None
        return value if isinstance(value, _SCALARS) else None

    def readable_uuid(self, key: str) -> uuid.UUID | None:
        """A top-level data attribute of the broken record when it is a UUID's text (else None)."""
        value = self.readable(key)
        if not isinstance(value, str) or len(value) > 64:
            return None
        try:
            return uuid.UUID(value)
        except ValueError:
            return None
