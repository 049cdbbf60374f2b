"""Monitor wiring: a faust app reading spin.events, jackpot.events and jackpot.meters in batches into its tables,
sending integrity alerts to monitor.alerts, and serving the meter and ops pages (faust web views + SSE routes)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

import faust

from shared.kafka import configured_session_ms
from shared.security import faust_credentials

from services.monitor.adapters import alerts as alert_events
from services.monitor.adapters import broker, records
from services.monitor.adapters.commits import clamp_commits, drain_before_commit, hold_inputs_until_seeked
from services.monitor.adapters.live import Live
from services.monitor.adapters.par_sheets import load_par_figures
from services.monitor.adapters.tables import declare_tables
from services.monitor.address import BIND_ENV, monitor_port
from services.monitor.core import plan
from services.monitor.web.routes import install_web
from shared.config import Settings, load_settings
from shared import records as provenance
from shared.events import encode
from shared.observability.http import announce_endpoint
from shared.readiness import ready_line
from shared.topics import JACKPOT_EVENTS, JACKPOT_METERS, MONITOR_ALERTS, SPIN_EVENTS

BATCH_MAX = 500
BATCH_WITHIN_S = 0.25
BROKER_LOOK_S = 3.0
COMMIT_EVERY_S = 1.0
log = logging.getLogger("reelstream.monitor")


def session_timeout_s(environ=None) -> float:
    """A killed monitor's partitions move to its successor after this (the spin service reads the same variable)."""
    return configured_session_ms(environ) / 1000


def build_app(settings: Settings, port: int, datadir: Path) -> tuple[faust.App, Live, object]:
    app = faust.App(
        settings.group("monitor"),
        broker=settings.faust_broker,
        broker_credentials=faust_credentials("monitor"),
        store="memory://",
        datadir=str(datadir),
        autodiscover=False,
        processing_guarantee="at_least_once",
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=1.0,
        broker_commit_every=2_000,
        broker_session_timeout=session_timeout_s(),
        broker_heartbeat_interval=1.0,
        producer_acks=-1,
        table_cleanup_interval=60.0,
        web_enabled=True,
        web_bind=os.environ.get(BIND_ENV, "127.0.0.1"),
        web_host="127.0.0.1",
        web_port=port,
        web_in_thread=False,
        topic_allow_declare=True,
        topic_disable_leader=True,
        web_router_enabled=False,
        web_tables_enabled=False,
    )
    raw = {"key_type": bytes, "value_type": bytes, "key_serializer": "raw", "value_serializer": "raw"}
    spin_topic = app.topic(settings.topic(SPIN_EVENTS), **raw)
    jackpot_topic = app.topic(settings.topic(JACKPOT_EVENTS), **raw)
    meters_topic = app.topic(settings.topic(JACKPOT_METERS), **raw)
    alerts_topic = app.topic(settings.topic(MONITOR_ALERTS), **raw)
    tables, live, pars = declare_tables(app), Live(), load_par_figures()
    drain_before_commit(app.producer.buffer, tables.faust_tables())
    clamp_commits(app.consumer, live.next_offset)
    hold_inputs_until_seeked(app)

    async def send_alerts(planned: plan.Planned) -> None:
        for alert in alert_events.alerts_of(planned, pars):
            value = encode(alert)
            headers = provenance.signed_headers("monitor", MONITOR_ALERTS, alert.key, value)
            await alerts_topic.send(key=alert.key, value=value, headers=headers)
            live.alerts_sent += 1
            log.warning("alert %s %s", alert.type, alert.subject)

    @app.agent(spin_topic, name="watch_spins")
    async def watch_spins(stream):
        async for events in stream.take_events(BATCH_MAX, within=BATCH_WITHIN_S):
            facts = records.spin_facts([event.message for event in events])
            await send_alerts(tables.apply(plan.plan_spin_events(tables.read, facts, pars)))
            live.read(SPIN_EVENTS, events)

    @app.agent(jackpot_topic, name="watch_jackpots")
    async def watch_jackpots(stream):
        async for events in stream.take_events(BATCH_MAX, within=BATCH_WITHIN_S):
            wins, movements = records.jackpot_facts([event.message for event in events])
            await send_alerts(tables.apply(plan.plan_jackpot_events(wins, movements)))
            live.read(JACKPOT_EVENTS, events)

    @app.agent(meters_topic, name="watch_meters")
    async def watch_meters(stream):
        async for events in stream.take_events(BATCH_MAX, within=BATCH_WITHIN_S):
            tables.apply(plan.plan_meters(records.meter_facts([event.message for event in events])))
            live.read(JACKPOT_METERS, events)

    @app.timer(interval=0.5)
    async def announce_ready():
        if live.ready or app.rebalancing or not app.consumer.assignment():
            return
        if not app.tables.recovery.completed.is_set():
            return
        live.ready = True
        sys.stderr.write(ready_line("monitor") + f" http://127.0.0.1:{port}/\n")
        sys.stderr.flush()

    committed: dict = {}

    @app.timer(interval=COMMIT_EVERY_S)
    async def commit_what_was_applied():
        """faust's own commit stalls at the offset gaps that transaction markers leave (measured: jackpot.events
        committed at 125 of 276, and spin.events partitions never, minutes after a demo); commit the positions the
        agents applied, through faust's commit path, which flushes the changelog writes first."""
        from faust.types import TP

        due = {TP(*tp): offset for tp, offset in live.next_offset.items() if committed.get(tp) != offset}
        if due and not app.rebalancing:
            await app.consumer._commit_offsets(due)
            committed.update({(tp.topic, tp.partition): offset for tp, offset in due.items()})

    @app.timer(interval=BROKER_LOOK_S)
    async def look_at_broker():
        await asyncio.to_thread(broker.refresh, live.broker, settings.kafka_bootstrap_servers, settings.topic_prefix)
        live.changed()

    install_web(app, tables, live, pars, settings)
    return app, live, tables


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    settings = load_settings()
    datadir = Path(os.environ.get("REELSTREAM_MONITOR_DATADIR", Path.cwd() / ".reelstream" / "monitor"))
    (datadir / settings.group("monitor")).mkdir(parents=True, exist_ok=True)
    port = monitor_port()
    app, _live, _tables = build_app(settings, port, datadir / settings.group("monitor"))
    # Listed like every service's endpoint: `services up` waits for this process's own /ready there.
    announce_endpoint("monitor", f"http://127.0.0.1:{port}")
    worker = app.Worker(loglevel="WARNING", quiet=True, redirect_stdouts=False, override_logging=False)
    worker.execute_from_commandline()


if __name__ == "__main__":
    main()
