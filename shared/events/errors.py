"""The one error type of the event codec: names the field that failed and why."""
from __future__ import annotations

from typing import Any


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

    def readable(self, key: str) -> Any:
        """A top-level data attribute of the broken record, when it could be read (else None)."""
        if not isinstance(self.raw, dict):
            return None
        data = self.raw.get("data")
        return data.get(key) if isinstance(data, dict) else None
