"""The stall watch (shared/observability/stalls.py) names a blocked event loop: how long, how much of it the garbage
collector took, and the project's code the loop's thread was in when the watchdog looked."""

from __future__ import annotations

import asyncio
import gc
import time

from shared.observability import stalls


def _watched(body, threshold_s: float) -> stalls.StallWatch:
    """Run `body()` (blocking) on a loop the watch runs on, with turns before and after it."""
    watch = stalls.StallWatch("test", threshold_s=threshold_s)

    async def scenario() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(watch.run(stop))
        await asyncio.sleep(0.1)
        body()
        await asyncio.sleep(0.1)
        stop.set()
        await task

    asyncio.run(scenario())
    return watch


def _blocking_code() -> None:
    started = time.process_time()
    while time.process_time() - started < 0.3:  # on a CPU all along
        sum(range(1000))


def _blocking_call() -> None:
    time.sleep(0.3)  # off the CPU: as a process no core runs


def test_a_loop_blocked_by_code_is_a_stall_of_its_length_at_that_code():
    watch = _watched(_blocking_code, threshold_s=0.1)
    [stall] = [s for s in watch.stalls if s.seconds >= 0.1]
    assert 0.25 <= stall.seconds < 2.0
    # Its CPU time is the code's (the cause then depends on whether the machine gave it a core for half the stall:
    # the rule itself is tested on `noticed` below).
    assert stall.gc_seconds < 0.05 and stall.cpu_seconds >= 0.25
    innermost, caller, _ = stall.site.split(" < ")
    assert innermost.endswith("tests/unit/shared/test_stall_watch.py:_blocking_code"), stall.site
    assert caller.endswith("test_stall_watch.py:scenario"), stall.site


def test_a_loop_blocked_off_the_cpu_is_a_waiting_stall():
    watch = _watched(_blocking_call, threshold_s=0.1)
    [stall] = [s for s in watch.stalls if s.seconds >= 0.1]
    assert 0.25 <= stall.seconds < 2.0
    assert stall.cause == "waiting" and stall.cpu_seconds < 0.1
    assert stall.site.split(" < ")[0].endswith("test_stall_watch.py:_blocking_call"), stall.site


def test_a_collection_that_blocks_the_loop_is_a_gc_stall():
    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    held = [Node() for _ in range(300_000)]
    gc.disable()  # no collection before the one measured
    try:
        started = time.perf_counter()
        gc.collect()  # how long one takes on this machine
        once = time.perf_counter() - started
        watch = _watched(gc.collect, threshold_s=max(0.01, once / 3))
    finally:
        gc.enable()
        del held
    gc_stalls = [s for s in watch.stalls if s.cause == "gc"]
    assert gc_stalls, (once, watch.stalls)
    assert gc_stalls[0].gc_seconds >= gc_stalls[0].seconds / 2


def test_a_short_lag_is_observed_but_no_stall():
    watch = stalls.StallWatch("test", threshold_s=0.1)
    assert watch.noticed(0.05, 0.0) is None and watch.stalls == []
    stall = watch.noticed(0.2, 0.15, 0.2)
    assert (stall.cause, watch.stalls) == ("gc", [stall])
    assert watch.noticed(0.3, 0.1, 0.3).cause == "code"
    assert watch.noticed(0.3, 0.1, 0.05).cause == "waiting"
    assert watch.noticed(0.3, 0.0).cause == "code", "CPU time unknown: not called waiting"


def test_the_site_is_the_innermost_frames_of_the_project_code():
    def inner():
        import sys

        return stalls.site_of(sys._getframe())

    site = inner().split(" < ")
    assert site[0].endswith("test_stall_watch.py:inner")
    assert site[1].endswith("test_stall_watch.py:test_the_site_is_the_innermost_frames_of_the_project_code")
    assert len(site) == 2  # then pytest's frames, not the project's


def test_the_threshold_comes_from_the_environment_and_zero_turns_it_off():
    assert stalls.StallWatch.from_env("s", {}).threshold_s == 0.1
    assert stalls.StallWatch.from_env("s", {stalls.STALL_ENV: "250"}).threshold_s == 0.25
    assert stalls.StallWatch.from_env("s", {stalls.STALL_ENV: "0"}) is None
