"""Structured JSON logs, one line per record, carrying service, partition, request id, event id and trace id: the loops
bind what they handle with `bound(...)`, the formatter adds the current span's ids."""

from __future__ import annotations

import contextvars
import logging
import sys
from datetime import datetime, timezone

import orjson
from opentelemetry import trace

_bound: contextvars.ContextVar[dict] = contextvars.ContextVar("reelstream_log_fields", default={})
# (partition, CloudEvents bytes) of the record being handled: set once per record, so a tuple, not a dict.
_handling: contextvars.ContextVar[tuple[int | None, bytes | None] | None] = contextvars.ContextVar(
    "reelstream_log_record", default=None
)
# Attributes every LogRecord has: anything else on a record came from `extra=` and is logged as a field.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class bound:  # noqa: N801 - used like a function: `with bound(partition=3):`
    """Fields (partition=..., request_id=..., event_id=...) on every log line written inside the block; record=<the
    CloudEvents bytes being handled> adds its event id and request id, parsed only if a line is written. A class, not
    a generator: it is entered once per handled record."""

    __slots__ = ("fields", "token")

    def __init__(self, **fields) -> None:
        self.fields = fields

    def __enter__(self) -> tuple:
        current = _bound.get()
        self.token = _bound.set({**current, **self.fields} if current else self.fields)  # None values: not logged
        return ()

    def __exit__(self, *_exc) -> None:
        _bound.reset(self.token)


class handling:  # noqa: N801 - used like a function: `with handling(partition, value):`
    """The record in hand (its partition, and its bytes, whose ids are parsed only if a line is written): the
    per-record fast path of `bound`."""

    __slots__ = ("item", "token")

    def __init__(self, partition: int | None, record: bytes | None) -> None:
        self.item = (partition, record)

    def __enter__(self) -> tuple:
        self.token = _handling.set(self.item)
        return ()

    def __exit__(self, *_exc) -> None:
        _handling.reset(self.token)


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = {key: value for key, value in _bound.get().items() if value is not None}
        record_in_hand = _handling.get()
        if record_in_hand is not None:
            fields.setdefault("partition", record_in_hand[0])
            fields.setdefault("record", record_in_hand[1])
        line.update(_ids_of(fields.pop("record", None)))
        line.update({key: value for key, value in fields.items() if value is not None})
        line.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            line["trace_id"] = format(context.trace_id, "032x")
            line["span_id"] = format(context.span_id, "016x")
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def _ids_of(value: bytes | None) -> dict:
    """The event id and request id of the record being handled, read only when a line is written (not per record)."""
    if not value:
        return {}
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(parsed, dict):
        return {}
    data = parsed.get("data")
    request_id = data.get("request_id") if isinstance(data, dict) else None
    return {key: value for key, value in (("event_id", parsed.get("id")), ("request_id", request_id)) if value}


def configure_logging(service: str, level: str = "INFO") -> None:
    """JSON lines on stderr for the whole process (replaces any earlier configuration); the Kafka clients' chatter
    stays at WARNING."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("kafka", "aiokafka"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
