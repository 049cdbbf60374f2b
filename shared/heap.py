"""The services' garbage-collection policy: freeze the long-lived heap so full collections stay short, and sweep it
now and then for what died inside a reference cycle."""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass, field

GC_FREEZE_ENV = "REELSTREAM_GC_FREEZE_S"
GC_SWEEP_ENV = "REELSTREAM_GC_SWEEP_S"


@dataclass
class HeapFreezer:
    """Every `every_s` seconds, `gc.freeze()`: what the process holds by then (books, de-duplication memory) leaves the
    cyclic collector's generations, so a full collection scans only what came since instead of stalling every
    partition as the heap grows (docs/spin.md, "Three hops, the stalls named"). Freezing costs O(1).

    What the books drop later is freed by reference counting (their records hold no cycles), but a frozen object that
    dies inside a reference cycle (a future and its callbacks, say) is not: every `sweep_every_s` the heap is unfrozen
    and collected in full once, then frozen again. The sweep is itself a full collection, so it runs rarely, as a
    safety net whose finds are logged. `every_s` 0 turns it off (`REELSTREAM_GC_FREEZE_S`); `REELSTREAM_GC_SWEEP_S`
    sets the sweep's interval. Each sweep's unreachable objects and duration are kept in `last_sweep` (logged by the
    loop)."""

    every_s: float = 30.0
    sweep_every_s: float = 3600.0
    frozen_at: float = field(default_factory=time.monotonic)
    swept_at: float = field(default_factory=time.monotonic)
    last_sweep: tuple[int, float] | None = None  # (unreachable objects found, seconds)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "HeapFreezer":
        env = env if env is not None else os.environ
        return cls(float(env.get(GC_FREEZE_ENV, cls.every_s)), float(env.get(GC_SWEEP_ENV, cls.sweep_every_s)))

    def tick(self, now: float | None = None) -> str | None:
        """ "sweep" (unfrozen, collected, frozen), "freeze", or None (not yet, or off)."""
        now = time.monotonic() if now is None else now
        if self.every_s <= 0 or now - self.frozen_at < self.every_s:
            return None
        done = "freeze"
        if now - self.swept_at >= self.sweep_every_s:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            self.last_sweep = (found, time.perf_counter() - started)
            self.swept_at, done = now, "sweep"
        gc.freeze()
        self.frozen_at = now
        return done
