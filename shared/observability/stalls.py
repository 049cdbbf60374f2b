"""Stalls of a service's event loop, named: how long the loop could not run, how much of that was the cyclic garbage
collector, and where the loop's thread was (docs/operations.md)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from shared.observability.metrics import GC_PAUSE, LOOP_LAG, STALLS

log = logging.getLogger("reelstream.stalls")

STALL_ENV = "REELSTREAM_STALL_MS"  # the threshold in ms; 0 turns the watch off
_ROOT = str(Path(__file__).resolve().parents[2])  # the checkout: frames under it are this project's code
SITE_FRAMES = 3


@dataclass(eq=False)  # identity: gc.callbacks.remove must take out this clock, not an equal one of another watch
class GcClock:
    """Seconds spent in the cyclic collector so far (gc.callbacks), and each collection observed by generation."""

    service: str
    total_s: float = 0.0
    _started: float | None = None

    def __call__(self, phase: str, info: dict) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        elif self._started is not None:
            took, self._started = now - self._started, None
            self.total_s += took
            GC_PAUSE.labels(self.service, str(info.get("generation", "?"))).observe(took)


def site_of(frame, root: str = _ROOT, depth: int = SITE_FRAMES) -> str:
    """The innermost `depth` frames of the project's own code on a stack (innermost last), as `path:function`; the
    innermost frame of all when none is the project's (a library's, say)."""
    ours, innermost = [], None
    while frame is not None:
        code = frame.f_code
        innermost = innermost or f"{code.co_filename}:{code.co_name}"
        if code.co_filename.startswith(root) and "/.venv/" not in code.co_filename and code.co_filename != __file__:
            ours.append(f"{os.path.relpath(code.co_filename, root)}:{code.co_name}")
            if len(ours) == depth:
                break
        frame = frame.f_back
    return " < ".join(ours) if ours else (innermost or "?")


@dataclass
class Stall:
    seconds: float
    gc_seconds: float
    site: str
    cpu_seconds: float | None = None  # the process's CPU time across it (None: not known)

    @property
    def cause(self) -> str:
        if self.gc_seconds >= self.seconds / 2:
            return "gc"
        return "waiting" if self.cpu_seconds is not None and self.cpu_seconds < self.seconds / 2 else "code"


@dataclass
class StallWatch:
    """The watch of one process's event loop (see the module docstring); `run(stop)` on that loop."""

    service: str
    threshold_s: float = 0.1
    # How often the loop beats and the watchdog looks (None: half the threshold). A timer's lateness is measured
    # whatever its period, so a longer tick misses no stall; it costs an idle process half the wake-ups a shorter one
    # does, and names the site of a stall once it is 1.5 thresholds long rather than sooner.
    tick_s: float | None = None
    gc_clock: GcClock = field(init=False)
    stalls: list[Stall] = field(default_factory=list)  # the last few, for tests and the curious
    _beat: float = 0.0
    _site: str | None = None
    _sampled_beat: float = -1.0

    def __post_init__(self) -> None:
        self.gc_clock = GcClock(self.service)
        if self.tick_s is None:
            self.tick_s = self.threshold_s / 2

    @classmethod
    def from_env(cls, service: str, env: dict[str, str] | None = None) -> "StallWatch | None":
        threshold_ms = float((env if env is not None else os.environ).get(STALL_ENV, "100"))
        return cls(service, threshold_ms / 1000) if threshold_ms > 0 else None

    async def run(self, stop: asyncio.Event) -> None:
        loop_thread = threading.get_ident()
        halt = threading.Event()
        watchdog = threading.Thread(target=self._watch, args=(loop_thread, halt), name="stall-watch", daemon=True)
        gc.callbacks.append(self.gc_clock)
        self._beat = time.perf_counter()
        watchdog.start()
        try:
            while not stop.is_set():
                asked, gc_before, cpu_before = time.perf_counter(), self.gc_clock.total_s, time.process_time()
                self._beat = asked
                await asyncio.sleep(self.tick_s)
                lag_s, gc_s = time.perf_counter() - asked - self.tick_s, self.gc_clock.total_s - gc_before
                self.noticed(lag_s, gc_s, time.process_time() - cpu_before)
        finally:
            halt.set()
            gc.callbacks.remove(self.gc_clock)
            watchdog.join(timeout=1)

    def noticed(self, lag_s: float, gc_s: float, cpu_s: float | None = None) -> Stall | None:
        """The loop ran a timer `lag_s` late, `gc_s` of it in the collector, the process on a CPU for `cpu_s` of the
        interval: observed, and a stall when long."""
        lag_s = max(0.0, lag_s)
        LOOP_LAG.labels(self.service).observe(lag_s)
        site, self._site = self._site, None
        if lag_s < self.threshold_s:
            return None
        stall = Stall(lag_s, min(gc_s, lag_s), site or "?", cpu_s)
        STALLS.labels(self.service, stall.cause).inc()
        self.stalls = [*self.stalls[-99:], stall]
        cpu_ms = None if cpu_s is None else round(cpu_s * 1000, 1)
        log.warning(
            "stall: the event loop was blocked %.0f ms (%s; %.0f ms of it in gc, %s ms on a CPU) at %s",
            lag_s * 1000,
            stall.cause,
            stall.gc_seconds * 1000,
            cpu_ms,
            stall.site,
            extra={
                "stall_ms": round(lag_s * 1000, 1),
                "gc_ms": round(stall.gc_seconds * 1000, 1),
                "cpu_ms": cpu_ms,
                "cause": stall.cause,
                "site": stall.site,
            },
        )
        return stall

    def _watch(self, loop_thread: int, halt: threading.Event) -> None:
        """The watchdog: once per stall, when the loop has not beaten for the threshold, where its thread is."""
        while not halt.wait(self.tick_s):
            beat = self._beat
            if beat != self._sampled_beat and time.perf_counter() - beat >= self.threshold_s:
                frame = sys._current_frames().get(loop_thread)
                self._site, self._sampled_beat = (site_of(frame) if frame is not None else None), beat
