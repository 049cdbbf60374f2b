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


def main() -> None:
    """`python -m bench.idle [--seconds S] [--out FILE]`: the wallet, jackpot and spin started on a fresh prefix, idle
    for S seconds beside the broker of this checkout's `infra up`, then stopped and their topics deleted."""
    import argparse
    import json
    import uuid
    from pathlib import Path

    from bench.spin_platform import cpu_sources, start_platform
    from shared.config import load_settings
    from shared.kafka import service_fetch_options
    from shared.topic_admin import delete_prefixed, ensure_topics

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out")
    args = parser.parse_args()
    bootstrap, prefix = load_settings().kafka_bootstrap_servers, f"idle{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = []
    try:
        services = start_platform(bootstrap, prefix, Path("bench-results/idle-logs"))
        pids = {name: pid for name, pid in cpu_sources(services, None).items() if name != "load generator"}
        figures = {**measure(pids, args.seconds), "fetch": service_fetch_options()}
    finally:
        for service in services:
            service.stop()
        delete_prefixed(bootstrap, prefix)
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
