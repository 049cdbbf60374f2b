"""The content fingerprint of a command: a repeat of its transaction id with other content is a conflict."""

from __future__ import annotations

import hashlib

from shared.events.base import CommandData
from shared.events.codec import canonical
from shared.events.wallet import (
    DebitWager,
    Deposit,
    PlaceWager,
    RefundWager,
    SelfExclude,
    SetLimit,
    SettleWager,
    Withdraw,
)

# Fields a command gained after its fingerprints were first stored: left out while unset, so a command without them
# keeps the fingerprint it always had (a repeat across the upgrade is still a repeat).
_LATER_FIELDS: dict[type, tuple[str, ...]] = {
    Deposit: ("operator_id",),
    Withdraw: ("operator_id",),
    SetLimit: ("operator_id",),
    SelfExclude: ("operator_id",),
    DebitWager: ("remainder_before_micro", "remainder_stranded"),
    PlaceWager: ("remainder_before_micro", "remainder_stranded", "remainder_after_micro"),
    SettleWager: ("remainder_after_micro", "operator_id"),
    RefundWager: ("operator_id",),
}


def fingerprint(command: CommandData) -> str:
    """sha256 of the type and every data field (sorted keys); the envelope (id, time, source) is not content."""
    return hashlib.sha256(canonical(command.TYPE, command, _LATER_FIELDS.get(type(command), ()))).hexdigest()
