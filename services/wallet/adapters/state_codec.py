"""A player's state and a remembered transaction as plain JSON documents (the parts of a partition snapshot)."""

from __future__ import annotations

from typing import Any

from services.wallet.core.state import LimitRule, OpenWager, PlayerState, Remainder, Remembered, Usage
from services.wallet.exceptions import StoreCorrupted


def player_doc(player: PlayerState) -> dict[str, Any]:
    return {
        "id": player.player_id,
        "seq": player.seq,
        "bal": dict(player.balances_minor),
        "open": {k: [w.currency, w.amount_minor, w.debited_ms, w.game] for k, w in player.open_wagers.items()},
        "lim": {k: [r.amount_minor, r.pending_amount_minor, r.pending_effective_ms] for k, r in player.limits.items()},
        "use": {k: [u.period_key, u.used_minor] for k, u in player.usage.items()},
        "exu": player.excluded_until_ms,
        "exi": player.excluded_indefinitely,
        "op": player.operator_id,
        "rem": {k: [r.currency, r.micro, r.wager_id, r.held_by] for k, r in player.remainders.items()},
        "cl": player.closed,
    }


def load_player(doc: dict[str, Any]) -> PlayerState:
    try:
        return PlayerState(
            player_id=doc["id"],
            seq=doc["seq"],
            balances_minor=doc["bal"],
            open_wagers={k: OpenWager(*v) for k, v in doc["open"].items()},
            limits={k: LimitRule(*v) for k, v in doc["lim"].items()},
            usage={k: Usage(*v) for k, v in doc["use"].items()},
            excluded_until_ms=doc["exu"],
            excluded_indefinitely=doc["exi"],
            operator_id=doc.get("op"),  # absent in snapshots written before accounts were bound to operators
            remainders={k: Remainder(*v) for k, v in doc.get("rem", {}).items()},  # absent before remainders
            closed=doc.get("cl", False),
        )
    except (KeyError, TypeError, AttributeError) as error:
        raise StoreCorrupted(f"player state unreadable: {error}") from error


def remembered_doc(player_id: str, entry: Remembered, where: int | tuple[bytes | None, bytes]) -> list[Any]:
    """The entry and where its fact is: its wallet.events offset, or its record's value (its key is the player's)."""
    return [
        player_id,
        entry.transaction_id,
        entry.seq,
        entry.recorded_ms,
        entry.fingerprint,
        entry.event_id,
        entry.event_type,
        where if isinstance(where, int) else where[1].decode(),
    ]


def load_remembered(doc: list[Any]) -> tuple[str, Remembered, int | str]:
    """(player id, entry, where its fact is: an offset, or its value as text)."""
    try:
        player_id, tx, seq, ms, fp, eid, type_, where = doc
        if not isinstance(where, (int, str)) or isinstance(where, bool):
            raise TypeError(f"where {where!r}")
        return player_id, Remembered(tx, seq, ms, fp, eid, type_), where
    except (ValueError, TypeError, AttributeError) as error:
        raise StoreCorrupted(f"memory entry unreadable: {error}") from error
