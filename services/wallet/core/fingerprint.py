"""The content fingerprint of a command: a repeat of its transaction id with other content is a conflict."""

from __future__ import annotations

import hashlib

import orjson

from shared.events.base import CommandData
from shared.events.wallet import DebitWager, Deposit, PlaceWager, SelfExclude, SetLimit, SettleWager, Withdraw

# Fields a command gained after its fingerprints were first stored: left out while unset, so a command without them
# keeps the fingerprint it always had (a repeat across the upgrade is still a repeat).
_LATER_FIELDS: dict[type, tuple[str, ...]] = {
    Deposit: ("operator_id",),
    Withdraw: ("operator_id",),
    SetLimit: ("operator_id",),
    SelfExclude: ("operator_id",),
    DebitWager: ("remainder_before_micro", "remainder_stranded"),
    PlaceWager: ("remainder_before_micro", "remainder_stranded", "remainder_after_micro"),
    SettleWager: ("remainder_after_micro",),
}


def fingerprint(command: CommandData) -> str:
    """sha256 of the type and every data field (sorted keys); the envelope (id, time, source) is not content."""
    data = command.model_dump(mode="json")
    for name in _LATER_FIELDS.get(type(command), ()):
        if data.get(name) is None:
            data.pop(name, None)
    content = {"type": command.TYPE, "data": data}
    return hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()
