"""Kafka records of the three topics the monitor reads → facts. A record its topic's owner did not write, or one that
does not decode, is counted and skipped — never applied (the services and the projector dead-letter such records;
the monitor only reads)."""

from __future__ import annotations

from collections import Counter

from services.monitor.core import facts as f
from shared import records
from shared.events import DecodeError, decode, may_be
from shared.events.jackpot import JackpotMeter, JackpotWon
from shared.events.spin import SpinRejected, SpinSettled

SPIN_TYPES = (SpinSettled.TYPE, SpinRejected.TYPE)
WIN_TYPE = JackpotWon.TYPE
skipped: Counter = Counter()


def _position(message, event_id: str = "", item: int = 0) -> f.Position:
    """faust gives the broker time in float seconds, kafka-python in integer ms (the fresh fold in tests)."""
    stamp = message.timestamp
    broker_ms = stamp if isinstance(stamp, int) else round(stamp * 1000)
    return f.Position(message.partition, message.offset, broker_ms, event_id, item)


def _decoded(topic: str, message):
    problem = records.provenance_problem(topic, message.headers, message.value, message.key)
    if problem is not None:
        skipped[f"{topic}: {problem[:80]}"] += 1
        return None
    try:
        return decode(message.value, expect_kind="event")
    except DecodeError as error:
        skipped[f"{topic}: {error.reason[:80]}"] += 1
        return None


def _events(topic: str, message) -> tuple:
    """The events of a record of a topic the loop may pack (one, or a batch envelope's items in order); none when
    its owner did not write it or it does not decode (counted)."""
    events, problem = records.trusted_events(topic, message)
    if problem is not None:
        skipped[f"{topic}: {problem[:80]}"] += 1
    return events


def spin_facts(messages) -> list:
    out = []
    for message in messages:
        if not may_be(message.value, SPIN_TYPES):
            continue
        event = _decoded("spin.events", message)
        if event is None:
            continue
        at = _position(message, str(event.id))
        if isinstance(event.data, SpinSettled):
            out.append(f.spin_fact(event.data, at))
        elif isinstance(event.data, SpinRejected):
            out.append(f.rejection_fact(event.data, at))
    return out


def meter_facts(messages) -> list[f.MeterFact]:
    out = []
    for message in messages:
        if message.value is None:
            continue  # a tombstone on the compacted topic
        event = _decoded("jackpot.meters", message)
        if event is not None and isinstance(event.data, JackpotMeter):
            out.append(f.meter_fact(event.data, _position(message, str(event.id))))
    return out


def jackpot_facts(messages) -> tuple[list[f.WinFact], list[f.MovementFact]]:
    wins, movements = [], []
    for message in messages:
        for item, event in enumerate(_events("jackpot.events", message)):
            at = _position(message, str(event.id), item)
            if isinstance(event.data, JackpotWon):
                wins.append(f.win_fact(event.data, at))
            movements.extend(f.movement_facts(str(event.id), event.data, at))
    return wins, movements
