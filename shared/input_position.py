"""The input positions travel with the records: a header on one record of each transaction, and reading it back
(docs/wallet.md, "Input position"); records with the older `POSITION_HEADER` carry the commands position alone."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from aiokafka import TopicPartition

POSITION_HEADER = "reelstream-commands-next-offset"
# Every input's next offset, "<logical topic>=<offset>" joined by ";" (the spin's three inputs on its journal).
INPUTS_HEADER = "reelstream-inputs-next-offsets"
# How often a partition's transactions also commit its positions to the consumer group (for lag tools), in seconds.
GROUP_COMMIT_INTERVAL_S = 5.0


@dataclass(frozen=True)
class Copy:
    """A copy of an output that the loop sends in the same transaction, made from its signed record (shared/emit.py:
    copies): to `topic` (logical), keyed by `key` (None: the output's), with the jackpot's proof header (`proof`)."""

    topic: str
    key: bytes | None = None
    proof: bool = False


@dataclass(frozen=True)
class Output:
    """A record to produce in a batch's transaction: an event (to the events topic, on the input's partition number)
    or a dead letter (to the DLQ), with complete headers (shared/records.py).

    A service that writes more topics (the spin) names the physical `topic`, and then `partition` is taken as it is
    (None: the key's partition); `tag` is the service's name for it. A transaction's outputs are sent together: under
    read_committed they become visible together or not at all, so the spin's journal (the seed) needs no
    acknowledgement of its own before the outputs that reveal the outcome. `message_type`: the CloudEvents type of an
    event's value, what the loop's packing (shared/packing.py) matches on ("": never packed); `copy`: one to make of
    it once it is signed (an answer on its operator's or player's topic: shared/emit.py), never packed."""

    dead_letter: bool
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]]
    topic: str | None = None
    partition: int | None = None
    tag: str = ""
    message_type: str = ""
    copy: Copy | None = None


def recorded_position(headers) -> int | None:
    """The commands position a record carries (it was the last event of its transaction), else None."""
    for name, value in headers or ():
        if name == POSITION_HEADER:
            return int(value)
    return None


def with_inputs(
    outputs: list[Output], positions: dict[str, int], on: tuple[str, ...], events_topic: str | None = None
) -> tuple[list[Output], bool]:
    """The batch's outputs with every input's position (`positions`: logical topic -> next offset) on the last record
    written to the first topic of `on` (physical names, by preference) the batch writes (an output naming no topic
    goes to `events_topic`), and whether one carries them; unchanged and False when the batch writes none of them
    (its offsets then commit in the transaction)."""
    if not positions:
        return outputs, False
    value = ";".join(f"{topic}={offset}" for topic, offset in sorted(positions.items())).encode()
    for topic in on:
        for index in range(len(outputs) - 1, -1, -1):
            out = outputs[index]
            if not out.dead_letter and (out.topic if out.topic is not None else events_topic) == topic:
                marked = replace(out, headers=[*out.headers, (INPUTS_HEADER, value)])
                return [*outputs[:index], marked, *outputs[index + 1 :]], True
    return outputs, False


def recorded_inputs(headers) -> dict[str, int]:
    """The input positions a record carries (`with_inputs`), by logical topic name; empty when it carries none.
    ValueError on a malformed value (only a writer's own, signed records are read for it)."""
    for name, value in headers or ():
        if name == INPUTS_HEADER:
            try:
                pairs = [item.split("=", 1) for item in value.decode().split(";")]
                found = {topic: int(offset) for topic, offset in pairs}
            except (UnicodeDecodeError, ValueError) as error:
                raise ValueError(f"malformed {INPUTS_HEADER} header {value!r}") from error
            if any(not topic or offset < 0 for topic, offset in found.items()):
                raise ValueError(f"malformed {INPUTS_HEADER} header {value!r}")
            return found
    return {}


def undecided(records: list, start: int | None) -> list:
    """The records at or after `start`, the partition's next offset to decide: a poll in hand while a partition was
    restored can hold records fetched from the group's older offset before its seek to the recorded position (the
    seek makes the consumer fetch again what follows the position). None: no position known yet, all of them."""
    if start is None or not records or records[0].offset >= start:
        return records
    return [record for record in records if record.offset >= start]


class InputPositions:
    """A transactional loop's input positions, per partition of each input topic (the commands topic's by default):
    the next offset to decide (where the partition resumed, then past each batch taken), and the positions of
    committed transactions the consumer group has not been told yet (a later transaction of the partition tells it,
    at most every `group_interval_s`: `for_group`; for lag tools only, recovery reads the records)."""

    def __init__(self, topic: str, group_interval_s: float = GROUP_COMMIT_INTERVAL_S) -> None:
        self.topic = topic
        self.group_interval_s = group_interval_s
        self._next: dict[TopicPartition, int] = {}
        self._for_group: dict[TopicPartition, int] = {}
        self._group_at: dict[int, float] = {}  # partition -> when a transaction last committed its group offsets
        self._started_at = time.monotonic()

    def take(self, partition: int, records: list, topic: str | None = None) -> list:
        """The records of a poll to decide now (`undecided` ones), the partition's next offset moved past them."""
        tp = TopicPartition(topic or self.topic, partition)
        records = undecided(records, self._next.get(tp))
        if records:
            self._next[tp] = records[-1].offset + 1
        return records

    async def resume(self, consumer, partition: int, recorded: dict[str, int]) -> None:
        """Seek a newly owned partition of each input topic in `recorded` (physical name -> the position the last
        committed transaction recorded) there, or to the group's committed offset when that is further (a transaction
        that carried no position commits only there). An input not recorded: the group's offset (or the reset
        policy) applies. The group's offsets are all read first: no await after the first seek."""
        tps = {TopicPartition(topic, partition): offset for topic, offset in recorded.items() if offset is not None}
        group = {tp: await consumer.committed(tp) or 0 for tp in tps}
        for tp, offset in tps.items():
            resume_at = max(offset, group[tp])
            consumer.seek(tp, resume_at)
            self._next[tp] = resume_at
            if resume_at > group[tp]:  # decided before a restart, never told: else lag shows until the next record
                self.committed(partition, resume_at, tp.topic)

    def committed(self, partition: int, next_offset: int, topic: str | None = None) -> None:
        """A transaction up to `next_offset` committed: the group learns it with a later transaction."""
        tp = TopicPartition(topic or self.topic, partition)
        self._for_group[tp] = max(next_offset, self._for_group.get(tp, 0))

    def for_group(
        self, partition: int, offsets: dict[TopicPartition, int], now: float, *, due_only: bool = True
    ) -> dict[TopicPartition, int]:
        """The offsets a transaction of `partition` about to commit should also commit to the group: its own batch's
        `offsets` with every position of the partition's committed transactions the group has not been told, when
        the partition's interval has passed (or always, `due_only=False`: a batch that must commit its offsets there);
        else none. The partition's transactions are strictly ordered, so these never run ahead of what committed."""
        if due_only and now - self._group_at.get(partition, self._started_at) < self.group_interval_s:
            return {}
        pending = {tp: offset for tp, offset in self._for_group.items() if tp.partition == partition}
        return {**pending, **offsets}

    def group_committed(self, partition: int, sent: dict[TopicPartition, int], now: float) -> None:
        """A transaction committed `sent` to the group (after `committed` for its own batch)."""
        for tp, offset in sent.items():
            if self._for_group.get(tp, -1) <= offset:
                self._for_group.pop(tp, None)
        self._group_at[partition] = now

    def idle_due(self, owned: Iterable[int], now: float) -> list[int]:
        """Owned partitions whose group has positions to learn and whose interval has passed: with no batch coming,
        each needs a transaction of its own (offsets only) to tell it."""
        waiting = {tp.partition for tp in self._for_group}
        return [
            partition
            for partition in owned
            if partition in waiting and now - self._group_at.get(partition, self._started_at) >= self.group_interval_s
        ]

    def known(self, partition: int) -> dict[str, int]:
        """The next offset to decide of each input topic (physical name) of the partition that has one."""
        return {tp.topic: offset for tp, offset in self._next.items() if tp.partition == partition}

    def forget(self, partition: int) -> None:
        """A partition released: its positions go with it (its next owner tells the group)."""
        for positions in (self._next, self._for_group):
            for tp in [tp for tp in positions if tp.partition == partition]:
                del positions[tp]
        self._group_at.pop(partition, None)
