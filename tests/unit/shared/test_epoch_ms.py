"""Broker time and epoch milliseconds convert exactly both ways (money-path clocks are integers, never floats):
any millisecond, before the epoch too, and any aware datetime whatever its offset, floored to its millisecond."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from shared.events.envelope import broker_time, epoch_ms

MS_RANGE = st.integers(min_value=-(10**13), max_value=10**14)  # ~1653 to ~5138


@given(MS_RANGE)
def test_a_broker_timestamp_comes_back_as_the_same_millisecond(ms):
    assert epoch_ms(broker_time(ms)) == ms


@given(MS_RANGE, st.integers(min_value=0, max_value=999), st.integers(min_value=-23 * 60, max_value=23 * 60))
def test_any_aware_moment_is_floored_to_its_millisecond_whatever_its_offset(ms, micro, offset_min):
    moment = (broker_time(ms) + timedelta(microseconds=micro)).astimezone(timezone(timedelta(minutes=offset_min)))
    assert epoch_ms(moment) == ms
    assert epoch_ms(datetime(1970, 1, 1, 0, 0, 0, 999, tzinfo=timezone.utc)) == 0
    assert epoch_ms(datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc)) == -1
