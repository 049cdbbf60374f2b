"""Bytes of the wallet store: a player's state and a remembered transaction, as compact orjson documents."""
from __future__ import annotations

import orjson

from services.wallet.core.state import LimitRule, OpenWager, PlayerState, Remembered, Usage
from services.wallet.exceptions import StoreCorrupted


def dump_player(player: PlayerState, log_head: int) -> bytes:
    """`log_head` is the store's pruning cursor (first seq whose memory entry may still be live)."""
    return orjson.dumps({
        "id": player.player_id,
        "seq": player.seq,
        "bal": player.balances_minor,
        "open": {k: [w.currency, w.amount_minor, w.debited_ms] for k, w in player.open_wagers.items()},
        "lim": {k: [r.amount_minor, r.pending_amount_minor, r.pending_effective_ms] for k, r in player.limits.items()},
        "use": {k: [u.period_key, u.used_minor] for k, u in player.usage.items()},
        "exu": player.excluded_until_ms,
        "exi": player.excluded_indefinitely,
        "head": log_head,
    })


def load_player(raw: bytes) -> tuple[PlayerState, int]:
    try:
        doc = orjson.loads(raw)
        player = PlayerState(
            player_id=doc["id"],
            seq=doc["seq"],
            balances_minor=doc["bal"],
            open_wagers={k: OpenWager(*v) for k, v in doc["open"].items()},
            limits={k: LimitRule(*v) for k, v in doc["lim"].items()},
            usage={k: Usage(*v) for k, v in doc["use"].items()},
            excluded_until_ms=doc["exu"],
            excluded_indefinitely=doc["exi"],
        )
        return player, doc["head"]
    except (orjson.JSONDecodeError, KeyError, TypeError) as error:
        raise StoreCorrupted(f"player state unreadable: {error}") from error


def dump_remembered(entry: Remembered) -> bytes:
    return orjson.dumps([
        entry.transaction_id, entry.seq, entry.recorded_ms, entry.fingerprint, entry.event_id, entry.event_type,
        entry.event_bytes.decode(),
    ])


def load_remembered(raw: bytes) -> Remembered:
    try:
        tx, seq, ms, fp, eid, type_, event = orjson.loads(raw)
        return Remembered(tx, seq, ms, fp, eid, type_, event.encode())
    except (orjson.JSONDecodeError, ValueError, TypeError, AttributeError) as error:
        raise StoreCorrupted(f"memory entry unreadable: {error}") from error
