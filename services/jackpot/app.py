"""Jackpot service wiring: jackpot.commands and jackpot.internal → pools → jackpot.events and jackpot.meters, until
SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable

from shared.readiness import ready_line
from shared import event_loop, observability
from shared.config import load_settings
from shared.pools import PoolsConfig, load_pools
from shared.topics import JACKPOT_SNAPSHOTS
from shared.warm import TAKE_WAIT_S, WarmStates, follow_until

from services.jackpot.adapters.restore import warm_states
from services.jackpot.adapters.runner import JackpotConfig, JackpotService, Stats
from games.registry import GAMES, stakes_minor
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


def prepare() -> None:
    """Before a spare's follow and a cold start's restore: every game's engine imported (the decisions read their
    stakes), so the first batch after a takeover does not hold the event loop for the import."""
    for game in GAMES:
        stakes_minor(game)


def spare(go: Callable[[], bool]) -> None:
    """A warm spare (reelstream/commands/services.py): keep every partition's networks up with jackpot.events until
    `go()` returns (True: take over and serve, False: the supervisor went away), so a takeover folds only the records
    the broker had not handed over yet (shared/warm.py)."""
    main(go)


async def _follow_until(go: Callable[[], bool], config: JackpotConfig, pools: PoolsConfig) -> WarmStates | None:
    """The spare's networks, followed until the go; None when the supervisor went away."""
    networks = warm_states(config.bootstrap, config.events_topic, config.snapshots_topic, pools)
    return await follow_until(go, networks, TAKE_WAIT_S)


async def serve(config: JackpotConfig, go: Callable[[], bool] | None = None) -> Stats | None:
    prepare()
    pools = load_pools()
    warm = await _follow_until(go, config, pools) if go is not None else None
    if go is not None and warm is None:
        return None  # a spare whose supervisor went away: nothing to take over
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    service = JackpotService(config, pools, warm=warm)

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


def main(go: Callable[[], bool] | None = None) -> None:
    require_self_test("jackpot")
    observability.setup("jackpot")
    try:
        stats = event_loop.run(serve(live_config(), go))
    finally:
        observability.shutdown_tracing()
    if stats is None:
        return
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
