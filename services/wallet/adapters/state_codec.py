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


def remembered_doc(player_id: str, entry: Remembered) -> list[Any]:
    return [
        player_id,
        entry.transaction_id,
        entry.seq,
        entry.recorded_ms,
        entry.fingerprint,
        entry.event_id,
        entry.event_type,
        entry.event_bytes.decode(),
    ]


def load_remembered(doc: list[Any]) -> tuple[str, Remembered]:
    """(player id, entry)."""
    try:
        player_id, tx, seq, ms, fp, eid, type_, event = doc
        return player_id, Remembered(tx, seq, ms, fp, eid, type_, event.encode())
    except (ValueError, TypeError, AttributeError) as error:
        raise StoreCorrupted(f"memory entry unreadable: {error}") from error
