"""The monitor's folds: how each table value changes with a group of facts, idempotent under redelivery (each value's
`pos` per source partition); the faust tables and `MonitorFold` call the same functions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from services.monitor.core import latency, sequential
from services.monitor.core.facts import MeterFact, MovementFact, RejectionFact, SpinFact, WinFact
from services.monitor.core.par import ParFigures

RECENT_WINS = 50
RECENT_IDS = 1_024
RECENT_POOL_EVENTS = 16


def _applying(
    value: dict | None, empty: Callable[[], dict], facts: Iterable[Any], add: Callable[[dict, Any], None]
) -> dict:
    """A copy of `value` with every fact it has not applied yet added, in order: by offset, then by item within a
    batch envelope's record (`items`: the last item applied at `pos`; none kept: the whole record was applied)."""
    value = _copy(value) if value else {**empty(), "pos": {}}
    for fact in facts:
        partition = str(fact.at.partition)
        done = value["pos"].get(partition, -1)
        if done > fact.at.offset:
            continue
        if done == fact.at.offset and value.get("items", {}).get(partition, fact.at.item) >= fact.at.item:
            continue
        add(value, fact)
        value["pos"][partition] = fact.at.offset
        value.setdefault("items", {})[partition] = fact.at.item
    return value


def _copy(value: dict) -> dict:
    return {
        key: (dict(item) if isinstance(item, dict) else list(item) if isinstance(item, list) else item)
        for key, item in value.items()
    }


def empty_stats() -> dict:
    return {
        "spins": 0,
        "wagered_minor": 0,
        "house_win_minor": 0,
        "pool_win_minor": 0,
        "hits": 0,
        "return_micro": 0,
        "stake_sq_minor": 0,
        "latency": {},
    }


def _add_spin(stats: dict, fact: SpinFact) -> None:
    stats["spins"] += 1
    stats["wagered_minor"] += fact.stake_minor
    stats["stake_sq_minor"] += fact.stake_minor * fact.stake_minor
    stats["house_win_minor"] += fact.house_win_minor
    stats["pool_win_minor"] += fact.pool_win_minor
    stats["hits"] += 1 if fact.house_win_minor + fact.pool_win_minor > 0 else 0
    stats["return_micro"] += fact.return_micro
    if fact.latency_ms is not None:
        latency.add(stats["latency"], fact.latency_ms)


def add_spins(value: dict | None, facts: Iterable[SpinFact]) -> dict:
    return _applying(value, empty_stats, facts, _add_spin)


def merge_stats(into: dict, other: dict) -> None:
    """Sum window or cell stats (for pages that add cells up); `pos` is not summed."""
    for key in (
        "spins",
        "wagered_minor",
        "house_win_minor",
        "pool_win_minor",
        "hits",
        "return_micro",
        "stake_sq_minor",
    ):
        into[key] += other[key]
    latency.merge(into["latency"], other["latency"])


def test_cell(value: dict | None, facts: Iterable[SpinFact], par: ParFigures) -> tuple[dict, list]:
    """The sequential RTP test of one cell; returns its new state and the crossings these facts caused."""
    crossings: list = []

    def add(state: dict, fact: SpinFact) -> None:
        crossing = sequential.observe(state, par, fact.stake_minor, fact.return_micro)
        if crossing is not None:
            crossings.append((fact, crossing))

    return _applying(value, sequential.new_state, facts, add), crossings


def count_rejections(value: dict | None, facts: Iterable[RejectionFact]) -> dict:
    def add(state: dict, fact: RejectionFact) -> None:
        state["count"] += 1

    return _applying(value, lambda: {"count": 0}, facts, add)


def set_meter(value: dict | None, facts: Iterable[MeterFact]) -> dict:
    def add(state: dict, fact: MeterFact) -> None:
        state.update(
            pool_id=fact.pool_id,
            network_id=fact.network_id,
            currency=fact.currency,
            level_minor=fact.level_minor,
            as_of_ms=fact.as_of_ms,
            broker_ms=fact.at.broker_ms,
        )

    return _applying(value, dict, facts, add)


def add_wins(value: dict | None, facts: Iterable[WinFact]) -> dict:
    """The last RECENT_WINS wins of a network, newest first; a win redelivered under another offset counts once."""

    def add(state: dict, fact: WinFact) -> None:
        if any(win["claim_id"] == fact.claim_id for win in state["wins"]):
            return
        win = {
            name: getattr(fact, name)
            for name in (
                "claim_id",
                "network_id",
                "pool_id",
                "tier",
                "player_id",
                "operator_id",
                "currency",
                "stake_minor",
                "share_ppm",
                "amount_minor",
                "recorded_at_ms",
            )
        }
        state["wins"] = sorted([win, *state["wins"]], key=lambda w: (w["recorded_at_ms"], w["claim_id"]), reverse=True)[
            :RECENT_WINS
        ]

    return _applying(value, lambda: {"wins": []}, facts, add)


def book_pool(value: dict | None, facts: Iterable[MovementFact]) -> tuple[dict, list]:
    """A pool's last closing balance; each movement must balance and open where the one before closed."""
    drifts: list = []

    def add(state: dict, fact: MovementFact) -> None:
        if fact.event_id in state["recent"]:
            return  # the same event written twice (a byte-identical redelivery of the jackpot service)
        if not fact.balanced:
            drifts.append((fact, "identity", fact.opening_micro, fact.closing_micro))
        if state["closing_micro"] is not None and state["closing_micro"] != fact.opening_micro:
            drifts.append((fact, "continuity", state["closing_micro"], fact.opening_micro))
        state["closing_micro"] = fact.closing_micro
        state["network_id"] = fact.network_id
        state["recent"] = [*state["recent"], fact.event_id][-RECENT_POOL_EVENTS:]
        state["drifts"] += len([d for d in drifts if d[0] is fact])

    return _applying(
        value, lambda: {"closing_micro": None, "network_id": "", "recent": [], "drifts": 0}, facts, add
    ), drifts


def drop_copies(value: dict | None, facts: list) -> tuple[dict, list]:
    """Facts of one partition minus copies of an event read before at another offset (the same event id written
    twice by a service's crash and retry); a redelivery of the same record is kept (the tables' `pos` skip it)."""
    seen = dict((value or {}).get("ids", {}))
    kept = []
    for fact in facts:
        offset = seen.get(fact.at.event_id)
        if offset is not None and offset != fact.at.offset:
            continue
        seen[fact.at.event_id] = fact.at.offset
        kept.append(fact)
    newest = sorted(seen.items(), key=lambda item: item[1])[-RECENT_IDS:]
    return {"ids": dict(newest)}, kept
