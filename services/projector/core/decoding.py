"""Decode and map a chunk of raw records (pure and picklable, so a worker process can do it beside the writer)."""

from __future__ import annotations

from typing import Any

from shared.events import DecodeError, broker_time, decode_all
from shared.events.batch import is_packed
from services.projector.core.mapping import RecordMeta, rows_of

# (topic, partition, offset, timestamp_ms, value)
RawRecord = tuple[str, int, int, int, bytes | None]
# ("event", event id, rows), ("events", [(event id, rows), ...] of a batch envelope's items, None) or
# ("dead", field, reason)
Decoded = tuple[str, Any, Any]


def decode_rows(records: list[RawRecord], refuse_types: frozenset[str] = frozenset()) -> list[Decoded]:
    """One result per record, in order: its rows (each item's, for a batch envelope), or why it is a dead letter."""
    out: list[Decoded] = []
    times: dict[int, Any] = {}  # LogAppendTime: a producer batch's records share one timestamp
    for topic, partition, offset, timestamp_ms, value in records:
        try:
            envs = decode_all(value, expect_kind="event")
            for env in envs:
                if env.type in refuse_types:
                    raise DecodeError(
                        "type", f"{env.type} is refused by this projector (REELSTREAM_PROJECTOR_REFUSE_TYPES)"
                    )
        except DecodeError as error:
            out.append(("dead", error.field, error.reason))
            continue
        moment = times.get(timestamp_ms)
        if moment is None:
            moment = times[timestamp_ms] = broker_time(timestamp_ms)
        meta = RecordMeta(topic, partition, offset, moment)
        if is_packed(value):
            out.append(("events", [(env.id, rows_of(env, meta)) for env in envs], None))
        else:
            out.append(("event", envs[0].id, rows_of(envs[0], meta)))
    return out
