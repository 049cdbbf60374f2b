"""The seamless saga's process: its loop (adapters/service.py) and its outbox (adapters/handing.py) side by side, with
one HTTP client per seamless operator of the operators file, until `stop` is set; `reelstream services run
seamless-saga` runs main() until SIGTERM."""

from __future__ import annotations

import asyncio
import random
import signal
import sys
from collections.abc import Callable

from shared import event_loop, observability, operators
from shared.config import Settings, load_settings
from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer
from shared.readiness import ready_line
from shared.topics import WALLET_SEAMLESS_CALLS

from services.seamless_saga.adapters.clients import wallet_clients
from services.seamless_saga.adapters.handing import HandingOutbox
from services.seamless_saga.adapters.kafka_log import WRITER
from services.seamless_saga.adapters.service import SeamlessService
from services.seamless_saga.core.decide import SeamlessCore

# The name it runs under (`services run`, its ready line, its metrics' service label).
SERVICE = "seamless-saga"


async def serve(
    settings: Settings,
    stop: asyncio.Event,
    configured: tuple[operators.Operator, ...] = operators.CONFIGURED,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Run the saga for `configured`'s seamless operators until `stop`; either half failing stops both."""
    core = SeamlessCore(random.random, lambda operator_id: operators.seamless_wallet_of(operator_id, configured))
    service = SeamlessService(settings, core, on_ready)
    clients = wallet_clients(configured)
    # The outbox's hand-overs are single records on a spin's answer path: sent at once, not lingering for company.
    safety = {**AIOKAFKA_PRODUCER_SAFETY, "linger_ms": 0}
    producer = aio_producer(settings.kafka_bootstrap_servers, role=WRITER, **safety)
    await producer.start()
    calls = settings.topic(WALLET_SEAMLESS_CALLS)
    outbox = HandingOutbox(service.owing, clients, producer, calls, committed=service.facts_committed)
    try:
        await asyncio.gather(service.loop.run(stop), outbox.run(stop))
    finally:
        stop.set()
        await producer.stop()
        for client in clients.values():
            await client.close()


def _announce_ready() -> None:
    seamless = ", ".join(operator.id for operator in operators.seamless_operators()) or "no operator"
    sys.stderr.write(f"{SERVICE}: restored; it calls the wallets of {seamless}\n")
    sys.stderr.write(ready_line(SERVICE) + "\n")
    sys.stderr.flush()


async def _serve_until_signalled(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    http = await observability.serve_http()
    try:
        await serve(settings, stop, on_ready=_announce_ready)
    finally:
        await http.stop()


def main() -> None:
    observability.setup(SERVICE)
    try:
        event_loop.run(_serve_until_signalled(load_settings()))
    finally:
        observability.shutdown_tracing()


if __name__ == "__main__":
    main()
