"""The content fingerprint of a command: a repeat of its transaction id with other content is a conflict."""

from __future__ import annotations

import hashlib

import orjson

from shared.events.base import CommandData


def fingerprint(command: CommandData) -> str:
    """sha256 of the type and every data field (sorted keys); the envelope (id, time, source) is not content."""
    content = {"type": command.TYPE, "data": command.model_dump(mode="json")}
    return hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()
