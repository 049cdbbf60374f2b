"""The wallet service process: `reelstream services run wallet` runs main() until SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Callable

from shared import event_loop, observability
from shared.config import load_settings
from shared.observability.metrics import WALLET_LIABILITY_MINOR, WALLET_OLDEST_OPEN_WAGER_AGE_S
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL, WALLET_SNAPSHOTS, dlq_name
from shared.warm import TAKE_WAIT_S, WarmStates, follow_until

from services.wallet.adapters.liabilities import liabilities_minor
from services.wallet.adapters.restore import warm_states
from shared.restoring import Report
from services.wallet.adapters.runner import WalletConfig, WalletService
from games.selftest import require_self_test

# Tuning knobs (tests lower them to get many batches and snapshots out of a few hundred commands).
BATCH_MAX_ENV = "REELSTREAM_WALLET_BATCH_MAX"
SNAPSHOT_RECORDS_ENV = "REELSTREAM_WALLET_SNAPSHOT_RECORDS"
SNAPSHOT_SECONDS_ENV = "REELSTREAM_WALLET_SNAPSHOT_SECONDS"


def live_config(environ: dict[str, str] | None = None) -> WalletConfig:
    env = os.environ if environ is None else environ
    settings = load_settings(env)
    return WalletConfig(
        bootstrap=settings.kafka_bootstrap_servers,
        commands_topic=settings.topic(WALLET_COMMANDS),
        events_topic=settings.topic(WALLET_EVENTS),
        dlq_topic=settings.topic(dlq_name(WALLET_COMMANDS)),
        group_id=settings.group("wallet"),
        snapshots_topic=settings.topic(WALLET_SNAPSHOTS),
        batch_max=int(env.get(BATCH_MAX_ENV, "2000")),
        snapshot_every_records=int(env.get(SNAPSHOT_RECORDS_ENV, WalletConfig.snapshot_every_records)),
        snapshot_every_s=float(env.get(SNAPSHOT_SECONDS_ENV, WalletConfig.snapshot_every_s)),
        internal_topic=settings.topic(WALLET_INTERNAL),
    )


def spare(go: Callable[[], bool]) -> None:
    """A warm spare (reelstream/commands/services.py): keep every partition's book up with wallet.events until `go()`
    returns (True: take over and serve, False: the supervisor went away), so a takeover folds only the records the
    broker had not handed over yet (shared/warm.py)."""
    main(go)


async def _follow_until(go: Callable[[], bool], config: WalletConfig) -> WarmStates | None:
    """The spare's books, followed until the go; None when the supervisor went away."""
    books = warm_states(config.bootstrap, config.events_topic, config.snapshots_topic)
    return await follow_until(go, books, TAKE_WAIT_S)


async def serve(config: WalletConfig, started: float, go: Callable[[], bool] | None = None) -> None:
    warm = await _follow_until(go, config) if go is not None else None
    if go is not None and warm is None:
        return  # a spare whose supervisor went away: nothing to take over
    if go is not None:
        started = time.monotonic()  # a spare's readiness counts from its go
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def ready(restored: list[Report]) -> None:
        from shared.readiness import ready_line

        with_snapshot = sum(1 for r in restored if r.snapshot_offset is not None)
        folded = sum(r.folded for r in restored)
        sys.stderr.write(
            f"wallet: restored {len(restored)} partitions ({with_snapshot} from a snapshot, {folded} events "
            f"folded) and ready {(time.monotonic() - started) * 1000:.0f} ms after start\n"
        )
        sys.stderr.write(ready_line("wallet") + "\n")
        sys.stderr.flush()

    service = WalletService(config, on_ready=ready, warm=warm)
    observability.PROCESS.gauges.append(lambda: _show_liabilities(service))
    observability.PROCESS.gauges.append(lambda: _show_oldest_open_wager(service))
    http = await observability.serve_http()
    try:
        stats = await service.run(stop)
    finally:
        await http.stop()
    logging.getLogger("reelstream.wallet").info(
        "stopped: %d records in %d partition batches, %d events, %d dead letters, %d snapshots; "
        "%.1f s deciding, %.1f s waiting for earlier commits, %.1f s writing snapshots",
        stats.records,
        stats.batches,
        stats.events,
        stats.dead_letters,
        stats.snapshots,
        stats.decide_s,
        stats.commit_s,
        stats.snapshot_s,
    )


def _show_liabilities(service: WalletService) -> None:
    WALLET_LIABILITY_MINOR.clear()  # a currency whose partitions moved to another instance is not shown here
    for currency, total_minor in liabilities_minor(list(service.loop.states.values())).items():
        WALLET_LIABILITY_MINOR.labels(currency).set(total_minor)


def _show_oldest_open_wager(service: WalletService) -> None:
    WALLET_OLDEST_OPEN_WAGER_AGE_S.set(service.open_wagers.age_s(time.time_ns() // 1_000_000))


def main(go: Callable[[], bool] | None = None) -> None:
    require_self_test("wallet")
    started = time.monotonic()
    observability.setup("wallet")
    try:
        event_loop.run(serve(live_config(), started, go))
    finally:
        observability.shutdown_tracing()


if __name__ == "__main__":
    main()
