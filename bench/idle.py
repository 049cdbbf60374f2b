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


async def after_quiet(bootstrap: str, prefix: str, spins: int, gap_s: float) -> dict:
    """`spins` spins, each `gap_s` after the one before (longer than the loops take to turn quiet): the latency of a
    spin that finds the platform idle, request due to answer read, as `LoadGenerator.paced` measures it."""
    import asyncio

    from bench.spin_load import LoadGenerator
    from bench.spin_platform import deposit_commands, spin_requests
    from shared.config import load_settings
    from shared.records import stand_in_batch
    from shared.session import issue_token

    players = [f"idle-{n:04d}" for n in range(spins)]
    expires_ms = time.time_ns() // 1_000_000 + 3_600_000
    tokens = {p: issue_token(load_settings().session_secret, p, expires_ms) for p in players}
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        deposits = deposit_commands(players)
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await load.send_all(f"{prefix}wallet.commands", deposits, signed)
        await asyncio.sleep(3 * gap_s)  # the deposits settle and the loops turn quiet again
        paced, _ = await load.paced(spin_requests(players, tokens, spins), 1 / gap_s)
        return {key: paced[key] for key in ("requests", "settled", "p50_ms", "p99_ms", "max_ms")} | {"gap_s": gap_s}
    finally:
        await load.stop()


def main() -> None:
    """`python -m bench.idle [--seconds S] [--probe-spins N] [--out FILE]`: the wallet, jackpot and spin started on a
    fresh prefix, idle for S seconds beside the broker of this checkout's `infra up`; then N spins spaced wider than
    the loops take to turn quiet, each finding the platform idle; then stopped and their topics deleted."""
    import argparse
    import asyncio
    import json
    import uuid
    from pathlib import Path

    from bench.spin_platform import cpu_sources, start_platform
    from reelstream.processes import stop_all
    from shared.config import load_settings
    from shared.kafka import quiet_fetch_options, service_fetch_options
    from shared.topic_admin import delete_prefixed, ensure_topics

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--probe-spins", type=int, default=0)
    parser.add_argument("--out")
    parser.add_argument("--broker-pid", type=int, help="the broker's process (default: this checkout's infra up)")
    args = parser.parse_args()
    bootstrap, prefix = load_settings().kafka_bootstrap_servers, f"idle{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = []
    try:
        services = start_platform(bootstrap, prefix, Path("bench-results/idle-logs"))
        pids = {name: pid for name, pid in cpu_sources(services, args.broker_pid).items() if name != "load generator"}
        figures = {**measure(pids, args.seconds), "fetch": service_fetch_options(), "quiet": quiet_fetch_options()}
        if args.probe_spins:
            figures["after_quiet"] = asyncio.run(after_quiet(bootstrap, prefix, args.probe_spins, 2.0))
    finally:
        stop_all(services)
        delete_prefixed(bootstrap, prefix)
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
