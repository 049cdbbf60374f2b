"""Time columns as the projector stages them: integer microseconds since 2000-01-01 UTC — Postgres's own timestamptz
value, sent through the binary codec of the writer's connections (adapters/store.stage_codecs). asyncpg encodes a
datetime at 1.0 µs (timezone.utc) to 1.7-2.9 µs (pydantic's tzinfo) and an int through that codec at 0.16-0.28 µs; a
row has two time columns, so this was ~0.15-0.25 s of the projector's ~1.3 s of CPU on the bench's 56,199 rows."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

PG_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
_PG_EPOCH_MS = 946_684_800_000
_ONE_US = timedelta(microseconds=1)


def pg_micros(moment: datetime) -> int:
    """An aware datetime as microseconds since the Postgres epoch (exact: no float)."""
    return (moment - PG_EPOCH) // _ONE_US


def pg_micros_of_ms(timestamp_ms: int) -> int:
    """A Kafka record timestamp (ms since the Unix epoch) as microseconds since the Postgres epoch."""
    return (timestamp_ms - _PG_EPOCH_MS) * 1000


def from_pg_micros(micros: int) -> datetime:
    return PG_EPOCH + timedelta(microseconds=micros)
