"""Staged times: integer microseconds since the Postgres epoch, exact both ways, from datetimes and broker times."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

from services.projector.core.times import PG_EPOCH, from_pg_micros, pg_micros, pg_micros_of_ms
from shared.events import broker_time, decode, encode, envelope
from shared.events.spin import SpinRejected


def test_a_datetime_becomes_its_microseconds_since_2000_and_back_exactly():
    moment = datetime(2026, 11, 30, 12, 34, 56, 789_123, tzinfo=timezone.utc)
    assert pg_micros(PG_EPOCH) == 0
    assert pg_micros(moment) == (moment - PG_EPOCH) // timedelta(microseconds=1)
    assert from_pg_micros(pg_micros(moment)) == moment
    assert pg_micros(datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc)) == -1


def test_an_offset_other_than_utc_names_the_same_instant():
    moment = datetime(2026, 11, 30, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    assert pg_micros(moment) == pg_micros(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))


def test_a_broker_timestamp_gives_the_same_microseconds_as_its_datetime():
    for timestamp_ms in (0, 946_684_800_000, 1_764_504_000_123):
        assert pg_micros_of_ms(timestamp_ms) == pg_micros(broker_time(timestamp_ms))


def test_a_decoded_time_with_pydantics_tzinfo_converts_like_the_original():
    moment = datetime(2026, 11, 30, 12, 0, 0, 1, tzinfo=timezone.utc)
    data = SpinRejected(request_id=uuid.UUID(int=1), player_id="p-1", code="X", message="no")
    event = envelope(data, source="t", time=moment)
    assert pg_micros(decode(encode(event)).time) == pg_micros(moment)
