"""Jackpot service wiring: jackpot.commands and jackpot.internal → pools → jackpot.events and jackpot.meters, until
SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

from shared.readiness import ready_line
from shared import event_loop, observability
from shared.config import load_settings
from shared.topics import JACKPOT_SNAPSHOTS

from services.jackpot.adapters.runner import JackpotConfig, JackpotService, Stats
from games.selftest import require_self_test


# Records per polled batch (one transaction, at most a few ContributionsApplied); tests lower it to get many batches.
BATCH_MAX_ENV = "REELSTREAM_JACKPOT_BATCH_MAX"
# A snapshot every so many events (tests and benchmarks lower it).
SNAPSHOT_EVENTS_ENV = "REELSTREAM_JACKPOT_SNAPSHOT_EVENTS"


def live_config(environ: dict[str, str] | None = None) -> JackpotConfig:
    settings = load_settings(environ)
    env = os.environ if environ is None else environ
    return JackpotConfig.on_prefix(
        settings.kafka_bootstrap_servers,
        settings.topic_prefix,
        batch_max=int(env.get(BATCH_MAX_ENV, "2000")),
        snapshots_topic=settings.topic(JACKPOT_SNAPSHOTS),
        snapshot_every_events=int(env.get(SNAPSHOT_EVENTS_ENV, "5000")),
    )


async def serve(config: JackpotConfig) -> Stats:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    service = JackpotService(config)

    def ready() -> None:
        stats = service.stats
        sys.stderr.write(
            f"jackpot: restored {len(stats.assigned)} partitions ({stats.restored_from_snapshot} from a snapshot, "
            f"{stats.restored_events} events folded)\n"
        )
        sys.stderr.write(ready_line("jackpot") + "\n")
        sys.stderr.flush()

    http = await observability.serve_http()
    try:
        return await service.run(stop, on_ready=ready)
    finally:
        await http.stop()


def main() -> None:
    require_self_test("jackpot")
    observability.setup("jackpot")
    try:
        stats = event_loop.run(serve(live_config()))
    finally:
        observability.shutdown_tracing()
    logging.getLogger("reelstream.jackpot").info(
        "stopped: %d records in %d batches, %d events, %d dead letters, %d repeats, %d meters",
        stats.records,
        stats.batches,
        stats.events,
        stats.dead_letters,
        stats.repeats,
        stats.meters,
    )


if __name__ == "__main__":
    main()
