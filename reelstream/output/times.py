"""One time format and one zone (UTC) for every command: people read `YYYY-MM-DD hh:mm:ss`, scripts RFC 3339."""

from __future__ import annotations

from datetime import datetime, timezone

ZONE = timezone.utc
ZONE_NAME = "UTC"


def as_datetime(value: datetime | int) -> datetime:
    """A datetime in UTC from a datetime (naive means UTC) or epoch milliseconds."""
    if isinstance(value, int):
        return datetime.fromtimestamp(value / 1000, ZONE)
    return value.replace(tzinfo=ZONE) if value.tzinfo is None else value.astimezone(ZONE)


def table_time(value: datetime | int) -> str:
    return as_datetime(value).strftime("%Y-%m-%d %H:%M:%S")


def machine_time(value: datetime | int) -> str:
    return as_datetime(value).isoformat(timespec="milliseconds").replace("+00:00", "Z")
