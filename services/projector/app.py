"""Projector wiring: every event topic → Postgres, in the foreground until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

from shared.readiness import ready_line
from shared import event_loop, observability
from shared.config import load_settings
from services.projector.adapters.kafka_io import FETCH_MAX_RECORDS, SOURCE_TOPICS
from services.projector.adapters.runner import Progress, Projector, ProjectorConfig
from games.selftest import require_self_test

# Test-only: types this projector refuses (as if it had a bug), to prove a DLQ re-drive after the fix.
REFUSE_TYPES_ENV = "REELSTREAM_PROJECTOR_REFUSE_TYPES"
# Records per fetch, hence at most per transaction (tests use small batches to crash between many of them).
MAX_RECORDS_ENV = "REELSTREAM_PROJECTOR_MAX_RECORDS"
# Decode worker processes (0 = in-process). Measured on the shared 2-core machine, 1 worker was slower
# (docs/projection.md).
DECODE_WORKERS_ENV = "REELSTREAM_PROJECTOR_DECODE_WORKERS"


def live_config(environ: dict[str, str] | None = None) -> ProjectorConfig:
    settings = load_settings(environ)
    env = os.environ if environ is None else environ
    refuse = frozenset(filter(None, env.get(REFUSE_TYPES_ENV, "").split(",")))
    max_records = int(env.get(MAX_RECORDS_ENV, str(FETCH_MAX_RECORDS)))
    workers = int(env.get(DECODE_WORKERS_ENV, "0"))
    return ProjectorConfig(
        bootstrap=settings.kafka_bootstrap_servers,
        database_url=settings.database_url,
        topics=tuple(settings.topic(name) for name in SOURCE_TOPICS),
        refuse_types=refuse,
        max_records=max_records,
        decode_workers=workers,
        topic_prefix=settings.topic_prefix,
    )


async def serve(config: ProjectorConfig) -> Progress:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def ready(progress: Progress) -> None:
        sys.stderr.write(ready_line("projector") + "\n")
        sys.stderr.flush()

    http = await observability.serve_http()
    try:
        return await Projector(config).run(stop, on_ready=ready)
    finally:
        await http.stop()


def main() -> None:
    require_self_test("projector")
    observability.setup("projector")
    try:
        progress = event_loop.run(serve(live_config()))
    finally:
        observability.shutdown_tracing()
    logging.getLogger("reelstream.projector").info(
        "stopped: %d events (%d new), %d dead letters, %d reconnects",
        progress.events,
        progress.new_events,
        progress.dead_letters,
        progress.reconnects,
    )


if __name__ == "__main__":
    main()
