"""Dead letters: the headers that say why a record could not be projected, and the re-drive marker (pure)."""
from __future__ import annotations

from dataclasses import dataclass

from shared.events import DecodeError

REASON = "reelstream-dlq-reason"
FIELD = "reelstream-dlq-field"
SOURCE_TOPIC = "reelstream-dlq-topic"
SOURCE_PARTITION = "reelstream-dlq-partition"
SOURCE_OFFSET = "reelstream-dlq-offset"
CONSUMER = "reelstream-dlq-consumer"
# Set on a record put back on its source topic by `reelstream ops dlq redrive`: "<dlq topic>/<partition>/<offset>".
REDRIVE = "reelstream-redrive-of"

Headers = list[tuple[str, bytes]]


@dataclass(frozen=True)
class DeadLetterOrigin:
    topic: str
    partition: int
    offset: int
    reason: str
    field: str
    consumer: str


def dead_letter_headers(
    error: DecodeError, *, topic: str, partition: int, offset: int, consumer: str, original: Headers = ()
) -> Headers:
    """The original headers (content-type, a re-drive marker) plus why and where the record failed."""
    ours = {REASON, FIELD, SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET, CONSUMER}
    kept = [(key, value) for key, value in original if key not in ours]
    return kept + [
        (REASON, error.reason[:1000].encode()),
        (FIELD, error.field[:200].encode()),
        (SOURCE_TOPIC, topic.encode()),
        (SOURCE_PARTITION, str(partition).encode()),
        (SOURCE_OFFSET, str(offset).encode()),
        (CONSUMER, consumer.encode()),
    ]


def origin_of(headers: Headers) -> DeadLetterOrigin | None:
    """Where a dead letter came from, or None when its headers are not ours."""
    found = {key: value.decode(errors="replace") for key, value in headers if value is not None}
    if SOURCE_TOPIC not in found:
        return None
    return DeadLetterOrigin(
        topic=found[SOURCE_TOPIC],
        partition=int(found.get(SOURCE_PARTITION, "-1")),
        offset=int(found.get(SOURCE_OFFSET, "-1")),
        reason=found.get(REASON, ""),
        field=found.get(FIELD, ""),
        consumer=found.get(CONSUMER, ""),
    )


def redrive_marker(dlq_topic: str, partition: int, offset: int) -> str:
    return f"{dlq_topic}/{partition}/{offset}"


def redrive_headers(original: Headers, marker: str) -> Headers:
    """Headers of a re-driven record: the original ones minus our DLQ reasons, plus the re-drive marker."""
    ours = {REASON, FIELD, SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET, CONSUMER, REDRIVE}
    return [(key, value) for key, value in original if key not in ours] + [(REDRIVE, marker.encode())]
