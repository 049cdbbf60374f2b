"""Ready = the consumer has an assignment, every assigned partition is restored, and its position reached the
partition's end as it was when the restore finished ("caught up"); pure bookkeeping, the probe feeds it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Readiness:
    assigned: bool = False  # an assignment (possibly empty: an idle standby instance is ready) has been handled
    restoring: set[int] = field(default_factory=set)  # partition numbers being restored now
    restores: int = 0  # restores running now (the projector learns its partitions only while restoring)
    restored: set[int] = field(default_factory=set)
    # Per (topic, partition) of the input consumer: the end offset to reach after the restore, then None once reached.
    targets: dict[tuple[str, int], int | None] = field(default_factory=dict)
    # Per partition being taken over: when its first restore since its assignment began (the clock of `finish`).
    began: dict[int, float] = field(default_factory=dict)

    def begin(self, partitions, began_s: float) -> None:
        for partition in partitions:
            self.began.setdefault(partition, began_s)
        self.restores += 1
        self.restoring |= set(partitions)
        self.restored -= set(partitions)

    def finish(self, partitions, began_s: float) -> None:
        """`began_s`: when this restore began (a caller may name partitions it learnt while restoring); a partition
        restored anew after a stopped restore keeps the first restore's."""
        for partition in partitions:
            self.began.setdefault(partition, began_s)
        self.restores -= 1
        self.restoring -= set(partitions)
        self.restored |= set(partitions)
        self.assigned = True
        for key in [key for key in self.targets if key[1] in set(partitions)]:
            del self.targets[key]  # measured again by the next probe: the end of the log after this restore

    def abort(self, partitions) -> None:
        """A restore stopped before it finished (cancelled by a rebalance, or failed)."""
        self.restores -= 1
        self.restoring -= set(partitions)

    def revoke(self, partitions) -> None:
        for partition in partitions:
            self.began.pop(partition, None)
        self.restoring -= set(partitions)
        self.restored -= set(partitions)
        for key in [key for key in self.targets if key[1] in set(partitions)]:
            del self.targets[key]

    def unmeasured(self, assignment: list[tuple[str, int]]) -> list[tuple[str, int]]:
        return [key for key in assignment if key[1] in self.restored and key not in self.targets]

    def observe(self, key: tuple[str, int], position: int) -> None:
        target = self.targets.get(key)
        if target is not None and position >= target:
            self.targets[key] = None

    def taken_over(self, assignment: list[tuple[str, int]], now_s: float) -> list[float]:
        """The takeover seconds of each partition that has just caught up on every assigned input: from its restore's
        beginning to `now_s` (the probe that saw it), once per assignment."""
        keys: dict[int, list[tuple[str, int]]] = {}
        for key in assignment:
            keys.setdefault(key[1], []).append(key)
        done = [p for p in self.began if p in self.restored and p in keys and all(self._caught_up(k) for k in keys[p])]
        return [now_s - self.began.pop(partition) for partition in done]

    def _caught_up(self, key: tuple[str, int]) -> bool:
        return key in self.targets and self.targets[key] is None

    def ready(self, assignment: list[tuple[str, int]]) -> bool:
        if not self.assigned or self.restores or self.restoring:
            return False
        return all(key[1] in self.restored and self._caught_up(key) for key in assignment)
