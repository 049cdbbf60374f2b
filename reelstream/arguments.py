"""Argument parsers shared by every command: a bad value is a one-line usage error (exit 2) with the hint a person
needs (minor units, accepted currencies, time formats), never a traceback from deeper down."""

from __future__ import annotations

import os
import re
import uuid
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from shared import operators
from shared.events.base import INT64_MAX, PlayerId
from shared.money import CURRENCIES

_WHOLE = re.compile(r"^[+-]?\d+$")
_DECIMAL = re.compile(r"^[+-]?\d*[.,]\d+$")
_RELATIVE = re.compile(r"^-(\d{1,6})([smhdw])$")
_RELATIVE_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_PLAYER_ID = TypeAdapter(PlayerId)
TIME_HINT = (
    "use a date (2026-11-30), a date-time (2026-11-30T07:40:00Z; no zone means UTC), "
    "a relative time (-1d, -6h, -30m), now, today or yesterday"
)


def _bad(reason: str) -> PydanticCustomError:
    """The error typer reports as "Invalid value for 'NAME': <reason>" (usage error, exit 2)."""
    return PydanticCustomError("reelstream_argument", "{reason}", {"reason": reason})


def _whole(text: str, what: str) -> int:
    text = text.strip().replace("_", "")
    if not _WHOLE.match(text):
        raise _bad(f"{text!r} is not a whole number of {what}")
    return int(text)


def amount_minor(text: str) -> int:
    """A positive amount in minor units, at most a signed 64-bit integer."""
    text = text.strip()
    if _DECIMAL.match(text):
        example = round(float(text.replace(",", ".")) * 100)
        raise _bad(f"amounts are in minor units (cents, øre): write {example} for {text}")
    value = _whole(text, "minor units (cents, øre), e.g. 1050 for 10.50")
    if value <= 0:
        raise _bad(f"the amount must be positive, got {value} (in minor units, e.g. 1050 for 10.50)")
    if value > INT64_MAX:
        raise _bad(f"the amount is too large: at most {INT64_MAX:,} minor units")
    return value


def currency(text: str) -> str:
    code = text.strip().upper()
    if code not in CURRENCIES:
        raise _bad(f"unknown currency {text!r}; accepted: {', '.join(CURRENCIES)}")
    return code


def player_id(text: str) -> str:
    try:
        return _PLAYER_ID.validate_python(text)
    except ValidationError:
        raise _bad(f"{text!r} is not a player id (1 to 64 of A-Z a-z 0-9 . _ : -)") from None


def operator_id(text: str) -> str:
    """One of this deployment's operators (shared/operators.py)."""
    if not operators.known(text):
        listed = ", ".join(operators.OPERATORS) or "none (a single-operator deployment)"
        raise _bad(f"unknown operator {text!r}; this deployment's operators: {listed}")
    return text


def id_prefix(text: str) -> str:
    """A prefix of a player or pool id (may be empty: everything)."""
    if text and not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", text):
        raise _bad(f"{text!r} is not the start of an id (up to 64 of A-Z a-z 0-9 . _ : -)")
    return text


def a_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text.strip())
    except ValueError:
        raise _bad(f"{text!r} is not a UUID (e.g. 5f0c3c52-7a57-4c5e-9d6b-6a8f3c1e2b10)") from None


def offset(text: str) -> int:
    """A Kafka offset: 0 .. 2**63-1."""
    value = _whole(text, "records (a Kafka offset)")
    if not 0 <= value <= INT64_MAX:
        raise _bad(f"an offset is between 0 and {INT64_MAX:,}, got {value:,}")
    return value


def moment(text: str, now: datetime) -> datetime:
    """A point in time (UTC when no zone is given); relative times count back from `now`."""
    text = text.strip()
    named = {"now": now, "today": datetime.combine(now.date(), time(), timezone.utc)}
    named["yesterday"] = named["today"] - timedelta(days=1)
    if text.lower() in named:
        return named[text.lower()]
    if relative := _RELATIVE.match(text):
        return now - timedelta(**{_RELATIVE_UNITS[relative.group(2)]: int(relative.group(1))})
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00")) if "T" in text or " " in text else None
        parsed = parsed or datetime.combine(date.fromisoformat(text), time())
    except ValueError:
        raise _bad(f"unrecognised time {text!r}: {TIME_HINT}") from None
    return parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed


def moment_now(text: str) -> datetime:
    """`moment` against the wall clock (the CLI's edge, where the clock may be read)."""
    return moment(text, datetime.now(timezone.utc))


def one_of(text: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise _bad(f"{text!r} is not one of {', '.join(choices)}")
    return text


def bounded_text(text: str, max_length: int) -> str:
    if len(text) > max_length:
        raise _bad(f"at most {max_length} characters, got {len(text)}")
    return text


def reset_target(text: str) -> str:
    """earliest | latest | offset:N | time:<ISO 8601> (what `ops reset-group --to` moves a group to)."""
    if text in ("earliest", "latest"):
        return text
    if text.startswith("offset:"):
        offset(text[7:])
        return text
    if text.startswith("time:"):
        try:
            datetime.fromisoformat(text[5:])
        except ValueError:
            raise _bad(f"{text[5:]!r} after time: is not an ISO 8601 time (e.g. 2026-11-30T07:40:00+00:00)") from None
        return text
    raise _bad(f"{text!r}: use earliest, latest, offset:N or time:<ISO 8601>")


def group_id(text: str) -> str:
    """A Kafka consumer group id (what `settings.group(...)` names, prefix included)."""
    if not re.fullmatch(r"[A-Za-z0-9._:-]{1,249}", text):
        raise _bad(f"{text!r} is not a consumer group id (1 to 249 of A-Z a-z 0-9 . _ : -)")
    return text


def output_file(text: str) -> Path:
    """A file to write: its directory must exist and be writable (checked before any work is done)."""
    path = Path(text)
    parent = path.parent if str(path.parent) else Path(".")
    if not text or path.is_dir():
        raise _bad(f"{text!r} is not a file name")
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise _bad(f"cannot write {text!r}: {parent} is not a writable directory")
    return path


def output_dir(text: str) -> Path:
    """A directory to write into (created if missing): it must not be a file, and its nearest existing parent must be
    writable."""
    path = Path(text)
    existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
    if not text or (path.exists() and not path.is_dir()):
        raise _bad(f"{text!r} is not a directory")
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise _bad(f"cannot write into {text!r}: {existing} is not a writable directory")
    return path


def topic_name(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,249}", text):
        raise _bad(f"{text!r} is not a Kafka topic name (1 to 249 of A-Z a-z 0-9 . _ -)")
    return text


def database_name(text: str) -> str:
    """A PostgreSQL database name that needs no quoting care: lower-case letters, digits and underscores."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", text):
        raise _bad(f"{text!r} is not a database name (1 to 63 of a-z 0-9 _, not starting with a digit)")
    return text
