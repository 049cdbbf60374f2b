"""The jackpot's state format inside a snapshot (shared/snapshots.py): one partition's networks as a JSON document, and
reading it back; a must-drop pool's drop point stays sealed (never in a snapshot)."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from functools import partial
from typing import Any

import orjson

from shared import snapshots
from shared.events import DecodeError, decode, encode

from services.jackpot.core.state import DropCycle, LastWin, NetworkState, OperatorLiability, PoolState, Seen

VERSION = 1


def _tagged(value: Any) -> Any:
    return {"uuid": str(value)} if isinstance(value, uuid.UUID) else value


def _untagged(value: Any) -> Any:
    return uuid.UUID(value["uuid"]) if isinstance(value, dict) else value


def _pool_doc(pool: PoolState) -> dict[str, Any]:
    doc = asdict(pool)
    if pool.drop is not None:
        doc["drop"] = {**asdict(pool.drop), "value": None}
    if pool.last_win is not None:
        doc["last_win"] = {**asdict(pool.last_win), "claim_id": str(pool.last_win.claim_id)}
    return doc


def _network_doc(state: NetworkState) -> dict[str, Any]:
    return {
        "network_id": state.network_id,
        "currency": state.currency,
        "pools": [_pool_doc(pool) for pool in state.pools.values()],
        "liability": {k: [v.contributed_micro, v.paid_micro] for k, v in state.liability_by_operator.items()},
        "seen": [
            [str(key), [_tagged(part) for part in seen.fingerprint], seen.recorded_ms, [str(e) for e in seen.event_ids]]
            for key, seen in state.seen.items()
        ],
        "answers": [encode(answer).decode() for answer in state.answers.values()],
        "last_recorded_ms": state.last_recorded_ms,
        "events_applied": state.events_applied,
    }


def image(states: dict[str, NetworkState], quarantined: tuple[int, ...] = (), lazy: bool = False) -> snapshots.Image:
    """The networks' image; `lazy`: carrying their encoder instead of its bytes (the loop runs it in a forked child at
    once: shared/snapshots.take)."""
    encoder = partial(_document, states)
    return snapshots.Image(encoder if lazy else encoder(), VERSION, quarantined)


def _document(states: dict[str, NetworkState]) -> bytes:
    return orjson.dumps([_network_doc(state) for state in states.values()])


def _load_pool(doc: dict[str, Any]) -> PoolState:
    last_win, drop = doc.pop("last_win"), doc.pop("drop")
    pool = PoolState(**doc, drop=None if drop is None else DropCycle(**drop))
    if last_win is not None:
        pool.last_win = LastWin(**{**last_win, "claim_id": uuid.UUID(last_win["claim_id"])})
    return pool


def _load_network(doc: dict[str, Any]) -> NetworkState:
    state = NetworkState(doc["network_id"], doc["currency"])
    state.pools = {pool.pool_id: pool for pool in map(_load_pool, doc["pools"])}
    state.liability_by_operator = {k: OperatorLiability(*v) for k, v in doc["liability"].items()}
    for key, fingerprint, recorded_ms, event_ids in doc["seen"]:
        parts = tuple(_untagged(part) for part in fingerprint)
        state.seen[uuid.UUID(key)] = Seen(parts, recorded_ms, tuple(uuid.UUID(e) for e in event_ids))
    for raw in doc["answers"]:
        answer = decode(raw.encode(), expect_kind="event")
        state.answers[answer.id] = answer
    state.last_recorded_ms = doc["last_recorded_ms"]
    state.events_applied = doc["events_applied"]
    return state


def load(snapshot: snapshots.Snapshot) -> dict[str, NetworkState]:
    """The networks a snapshot holds; ValueError when it cannot be used."""
    if snapshot.format_version != VERSION:
        raise ValueError(f"jackpot state format {snapshot.format_version}, this jackpot reads {VERSION}")
    try:
        networks = [_load_network(doc) for doc in orjson.loads(snapshot.state)]
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError, DecodeError) as error:
        raise ValueError(f"jackpot state unreadable: {error}") from error
    return {state.network_id: state for state in networks}
