"""A snapshots partition without Kafka: records as a topic would hand them back (offsets in order), so the pure parts
of shared/snapshots.py (encode, the one-pass read) run in unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared import snapshots


@dataclass
class LogRecord:
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]
    offset: int
    partition: int = 0


@dataclass
class SnapshotLog:
    """What a snapshots partition holds, oldest first; `read` is the one-pass restore read of it."""

    logical_topic: str
    partition: int = 0
    records: list[LogRecord] = field(default_factory=list)

    def append(self, key, value, headers) -> LogRecord:
        record = LogRecord(key, value, list(headers), len(self.records), self.partition)
        self.records.append(record)
        return record

    def write(self, writer: str, slot: int, image: snapshots.Image, input_next, output_next) -> None:
        for key, value, headers in snapshots.encode(
            writer, self.logical_topic, self.partition, slot, image, input_next, output_next
        ):
            self.append(key, value, headers)

    def read(self) -> list[snapshots.Snapshot]:
        collector = snapshots.Collector(self.logical_topic, self.partition)
        for record in self.records:
            collector.add(record)
        return collector.newest_first()
