"""The input position travels with the events: the header on each transaction's last event, and reading it back.

A service that turns `<x>.commands` into `<x>.events` in one Kafka transaction per batch puts the next commands offset
of the partition on the batch's last event (dead letters carry none), so the position commits atomically with the
events it produced and the transaction needs no `send_offsets_to_transaction` (AddOffsetsToTxn + TxnOffsetCommit and a
marker on __consumer_offsets: ~3 ms of broker CPU and two round trips each; docs/wallet.md, "Input position").
Recovery folds the events anyway and keeps the last position a record carries; a new owner resumes there (or at the
group's offset when that is further). The group's offsets are still committed now and then, for lag tools only.
Used by the wallet and the jackpot.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from aiokafka import TopicPartition

POSITION_HEADER = "reelstream-commands-next-offset"
# How often the positions of committed transactions are also committed to the consumer group (for lag tools).
GROUP_COMMIT_INTERVAL_S = 5.0


@dataclass(frozen=True)
class Output:
    """A record to produce in a batch's transaction: an event (to the events topic, on the input's partition number)
    or a dead letter (to the DLQ), with complete headers (shared/records.py).

    A service that writes more topics (the spin) names the physical `topic`, and then `partition` is taken as it is
    (None: the key's partition); `tag` is the service's name for it. A transaction's outputs are sent together: under
    read_committed they become visible together or not at all, so the spin's journal (the seed) needs no
    acknowledgement of its own before the outputs that reveal the outcome."""

    dead_letter: bool
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]]
    topic: str | None = None
    partition: int | None = None
    tag: str = ""


def recorded_position(headers) -> int | None:
    """The commands position a record carries (it was the last event of its transaction), else None."""
    for name, value in headers or ():
        if name == POSITION_HEADER:
            return int(value)
    return None


def with_position(outputs: list[Output], next_offset: int) -> list[Output]:
    """The batch's outputs with the commands position on its last event (dead letters carry none); unchanged when
    the batch has no event, which then has to commit its offset some other way (send_offsets_to_transaction)."""
    for index in range(len(outputs) - 1, -1, -1):
        if not outputs[index].dead_letter:
            last = outputs[index]
            marked = replace(last, headers=[*last.headers, (POSITION_HEADER, str(next_offset).encode())])
            return [*outputs[:index], marked, *outputs[index + 1 :]]
    return outputs


def carries_position(outputs: list[Output]) -> bool:
    """Whether `with_position` put the position on one of these outputs (the batch has at least one event)."""
    return any(not out.dead_letter for out in outputs)


def undecided(records: list, start: int | None) -> list:
    """The records at or after `start`, the partition's next offset to decide: a poll in hand while a partition was
    restored can hold records fetched from the group's older offset before its seek to the recorded position (the
    seek makes the consumer fetch again what follows the position). None: no position known yet, all of them."""
    if start is None or not records or records[0].offset >= start:
        return records
    return [record for record in records if record.offset >= start]


class InputPositions:
    """A transactional loop's input positions, per partition of its commands topic: the next offset to decide (where
    the partition resumed, then past each batch taken), and the positions of committed transactions still to be
    committed to the consumer group (every `group_interval_s`, for lag tools only; recovery does not read them)."""

    def __init__(self, topic: str, group_interval_s: float = GROUP_COMMIT_INTERVAL_S) -> None:
        self.topic = topic
        self.group_interval_s = group_interval_s
        self._next: dict[int, int] = {}
        self._for_group: dict[TopicPartition, int] = {}
        self._group_committed_at = time.monotonic()

    def take(self, partition: int, records: list) -> list:
        """The records of a poll to decide now (`undecided` ones), the partition's next offset moved past them."""
        records = undecided(records, self._next.get(partition))
        if records:
            self._next[partition] = records[-1].offset + 1
        return records

    async def resume(self, consumer, partition: int, recorded: int | None) -> None:
        """Seek a newly owned partition to where the last committed transaction left it: the position its events
        recorded, or the group's committed offset when that is further (a transaction without events commits only
        there). Nothing recorded: the group's offset (or the reset policy) applies. No await after the seek."""
        if recorded is None:
            return
        tp = TopicPartition(self.topic, partition)
        resume_at = max(recorded, await consumer.committed(tp) or 0)
        consumer.seek(tp, resume_at)
        self._next[partition] = resume_at

    def committed(self, partition: int, next_offset: int) -> None:
        """A transaction up to `next_offset` committed: the group learns it at the next interval."""
        self._for_group[TopicPartition(self.topic, partition)] = next_offset

    def next_offset(self, partition: int) -> int | None:
        """The partition's next offset to decide (None: not known yet)."""
        return self._next.get(partition)

    def forget(self, partition: int) -> None:
        self._next.pop(partition, None)

    async def commit_group_if_due(self, consumer, owned: Iterable[int], log: logging.Logger) -> None:
        """Commit the positions of committed transactions of the partitions still owned (a failure is logged; the next
        interval tries again)."""
        if time.monotonic() - self._group_committed_at < self.group_interval_s:
            return
        self._group_committed_at = time.monotonic()
        owned = set(owned)
        positions = {tp: offset for tp, offset in self._for_group.items() if tp.partition in owned}
        self._for_group = {}
        if not positions:
            return
        try:
            await consumer.commit(positions)
        except Exception as error:  # noqa: BLE001 - monitoring only
            log.warning("group offset commit failed (the positions are kept in the events): %r", error)
