"""One restore shape for the money services: each declares its snapshot reader, empty state and what it folds
(`RestoreSpec`); `Restoring` restores a partition (snapshot or warm state, plus the tail) and keeps the bookkeeping
once: stats, quarantined offsets, staggered snapshot timing, the log line (docs/snapshots.md, "Restore")."""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared import snapshots
from shared.loop import LoopStats, Restored


Make = Callable[[tuple[int, ...]], snapshots.Image]  # a service's snapshot writer, of the quarantined offsets


@dataclass(frozen=True)
class RestoreSpec:
    """What a service declares for its restore: its role (the Kafka principal), the logical names of its snapshots and
    commands topics, its snapshot reader (`load`: ValueError on a snapshot it cannot use), an empty state of a
    partition, what it folds: its events topic, each read-back record by `fold(held, record)` (the core's evolve of
    the decoded message, returning why the record was quarantined instead, or None), or the topics its own `tail(
    partition)` folds (snapshots.Tail); the loop's state of what the fold built (`state`), and what keeps a folded
    state to what the live one keeps (`prune`: every `prune_every` records folded by `fold`, and at the end)."""

    role: str
    snapshots_logical: str
    commands_logical: str
    load: Callable[[snapshots.Snapshot], Any]
    empty: Callable[[int], Any]
    fold: Callable[[Any, Any], str | None] | None = None
    tail: Callable[[int], snapshots.Tail] | None = None
    state: Callable[[Any], Any] = lambda held: held
    prune: Callable[[Any], None] | None = None
    prune_every: int = 10_000


@dataclass(frozen=True)
class Report:
    """One partition restored: the loop's state and what the fold built (`held`), the events offset of the snapshot it
    started from (None: folded from the beginning), the records folded after it, the snapshots' cursor, whether it
    came from a warm spare's state, the commands topic's position (None: none recorded) and the events offset after
    what it reflects."""

    state: Any
    held: Any
    snapshot_offset: int | None
    folded: int
    cursor: snapshots.Cursor | None
    warm: bool
    commands_offset: int | None
    events_end: int


class Restoring:
    """A service's restores and the snapshot timing of the partitions it owns: a partition's first snapshot after its
    restore falls due staggered (snapshots.staggered), then every `every_count` changes or `every_s` seconds with
    anything changed."""

    def __init__(
        self,
        spec: RestoreSpec,
        bootstrap: str,
        events_topic: str,
        snapshots_topic: str | None,
        *,
        every_s: float = 600.0,
        every_count: int = 20_000,
        stats: LoopStats | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.spec, self.bootstrap = spec, bootstrap
        self.events_topic, self.snapshots_topic = events_topic, snapshots_topic
        self.every_s, self.every_count = every_s, every_count
        self.stats = stats if stats is not None else LoopStats()
        self.log = logger or logging.getLogger(f"reelstream.{spec.role}")
        self.snapshot_at: dict[int, float] = {}
        self.quarantined: dict[int, tuple[int, ...]] = {}  # events offsets a restore quarantined, named by each image
        self.unsnapshotted: dict[int, int] = {}  # changes since the partition's last snapshot (`image`)

    async def restore(self, partition: int, warm: snapshots.Restoration | None = None) -> Restored[Any]:
        """The partition's state: from its newest snapshot plus tail, or from a warm spare's restoration (`warm`) plus
        the records after its last step (the caller has fenced the previous owner)."""
        started = time.perf_counter()
        restored = await self.fold(partition, warm)
        held, folded, cursor = restored.state, restored.folded, restored.cursor
        snapshot_offset = restored.snapshot.output_next if restored.snapshot else None
        commands_offset, state = restored.commands_next(self.spec.commands_logical), self.spec.state(held)
        report = Report(
            state, held, snapshot_offset, folded, cursor, warm is not None, commands_offset, restored.events_end
        )
        self.stats.restores += 1
        self.stats.restored_events += folded
        self.stats.restored_from_snapshot += snapshot_offset is not None
        self.snapshot_at[partition] = snapshots.staggered(partition, self.every_s, time.monotonic())
        self.quarantined[partition] = restored.quarantined
        self.unsnapshotted[partition] = folded  # in no snapshot yet: the next one spares the next owner
        how, millis = " from a warm state" if warm is not None else "", (time.perf_counter() - started) * 1000
        self.log.info(
            "partition %d restored in %.0f ms%s: snapshot at %s, %d records folded, %d quarantined",
            *(partition, millis, how, snapshot_offset, folded, len(restored.quarantined)),
        )
        return Restored(state, commands_offset, report, cursor, inputs=dict(restored.inputs))

    async def fold(self, partition: int, warm: snapshots.Restoration | None = None) -> snapshots.Restoration:
        """`restore` without the bookkeeping (a spare's states, tools): a warm restoration folded on to the ends, or
        (none, or one ahead of the ends) the newest usable snapshot and what it does not reflect. A warm one's next
        snapshot goes to the slot the spare's own restore chose: when the previous owner wrote an odd number of
        snapshots since, that is the newest one's, and the generation kept beside it is an older (still valid) one."""
        tail = self._tail(partition, self._pruning())
        restored = None if warm is None else await tail(warm)
        if restored is None:
            restored = await snapshots.restore(
                self.bootstrap,
                role=self.spec.role,
                partition=partition,
                snapshots_topic=self.snapshots_topic,
                snapshots_logical=self.spec.snapshots_logical,
                load=self.spec.load,
                empty=lambda: self.spec.empty(partition),
                tail=tail,
            )
        if self.spec.prune is not None:
            self.spec.prune(restored.state)
        return restored

    def _tail(self, partition: int, fold: Callable[[Any, Any], str | None] | None) -> snapshots.Tail:
        if self.spec.tail is not None:
            return self.spec.tail(partition)
        assert fold is not None, "a spec folds its events topic (`fold`) or has its own `tail`"
        return snapshots.events_tail(self.bootstrap, self.spec.role, partition, self.events_topic, fold)

    def _pruning(self) -> Callable[[Any, Any], str | None] | None:
        """The spec's fold, pruning the state every `prune_every` records folded (a long tail stays within the live
        state's memory)."""
        spec, folded = self.spec, itertools.count(1)
        if spec.prune is None or spec.fold is None:
            return spec.fold

        def pruned(held: Any, record: Any) -> str | None:
            problem = spec.fold(held, record)
            if problem is None and next(folded) % spec.prune_every == 0:
                spec.prune(held)
            return problem

        return pruned

    def changed(self, partition: int, count: int) -> None:
        """`count` changes (events decided) made to the partition's state since its last snapshot."""
        self.unsnapshotted[partition] = self.unsnapshotted.get(partition, 0) + count

    def image(self, partition: int, make: Make, force: bool = False) -> snapshots.Image | None:
        """The partition's image (`make(quarantined)`: the service's snapshot writer) when a snapshot is due: after
        `every_count` changes (`changed`) or `every_s` seconds with anything changed, or at shutdown (`force`) with
        anything changed; else None."""
        changed = self.unsnapshotted.get(partition, 0)
        if not changed:
            return None
        elapsed = time.monotonic() - self.snapshot_at.get(partition, 0.0)
        if not (force or changed >= self.every_count or elapsed >= self.every_s):
            return None
        started = time.perf_counter()
        made = make(self.quarantined.get(partition, ()))
        self.unsnapshotted[partition] = 0
        self.snapshot_at[partition] = time.monotonic()
        self.stats.snapshots += 1
        self.stats.snapshot_s += time.perf_counter() - started
        return made

    def released(self, partition: int) -> None:
        for kept in (self.snapshot_at, self.quarantined, self.unsnapshotted):
            kept.pop(partition, None)
