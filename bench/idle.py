"""What a platform without spins costs: the CPU its processes spend over a quiet interval, in percent of one core."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from bench.spin_platform import cpu_s


def core_percent(cpu_before: Mapping[str, float], cpu_after: Mapping[str, float], seconds: float) -> dict[str, float]:
    """Percent of one core each process used between two readings of its CPU seconds, `seconds` apart."""
    assert seconds > 0, "an idle interval has a length"
    return {name: round(100 * (cpu_after[name] - cpu_before[name]) / seconds, 2) for name in cpu_before}


def measure(
    pids: Mapping[str, int],
    seconds: float,
    broker: str = "broker",
    sleep: Callable[[float], None] = time.sleep,
) -> dict:
    """Sleep `seconds` beside the processes and report their CPU: `idle_core_percent` (the services and the broker),
    `services_core_percent` (without the broker, which serves every client of this machine's broker), by process,
    and the machine's 1-minute load average on both sides."""
    load_before = os.getloadavg()[0]
    before, started = {name: cpu_s(pid) for name, pid in pids.items()}, time.monotonic()
    sleep(seconds)
    after, took = {name: cpu_s(pid) for name, pid in pids.items()}, time.monotonic() - started
    by_process = core_percent(before, after, took)
    return {
        "idle_core_percent": round(sum(by_process.values()), 2),
        "services_core_percent": round(sum(v for name, v in by_process.items() if name != broker), 2),
        "by_process": by_process,
        "seconds": round(took, 1),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
