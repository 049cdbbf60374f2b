"""The faust wiring: an agent on wallet.commands (keyed by player id) over one rocksdict-backed table.

At-least-once: faust acks a record after the handler returned and commits acked offsets only after flushing the
producer (events and changelog), so an event is in Kafka before its command's offset is committed. Exactly one
distinct event id per fact comes from the deterministic, idempotent handler, not from faust's exactly_once mode.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka

from shared.config import Settings
from shared.crash import crash_point
from shared.topics import PLAYER_PARTITIONS, WALLET_COMMANDS, WALLET_EVENTS, dlq_name

from services.wallet.adapters.handler import handle

TABLE_NAME = "wallet-store"
_original_extra = faust_aiokafka.Producer._settings_extra


def _safe_producer_settings(self) -> dict:
    # faust enables idempotence only in exactly_once mode; this process wants it always (no duplicates on retry).
    return {**_original_extra(self), "acks": "all", "enable_idempotence": True}


faust_aiokafka.Producer._settings_extra = _safe_producer_settings


def build_app(settings: Settings, datadir: Path, started_monotonic: float) -> faust.App:
    app = faust.App(
        settings.group("wallet"),
        broker=settings.faust_broker,
        store="rocksdb://",
        datadir=str(datadir),
        autodiscover=False,
        web_enabled=False,
        processing_guarantee="at_least_once",
        topic_partitions=PLAYER_PARTITIONS,
        topic_replication_factor=1,
        table_standby_replicas=0,
        producer_acks=-1,
        producer_linger=0.002,
        consumer_auto_offset_reset="earliest",
        broker_commit_every=2_000,
        broker_commit_interval=1.0,
        # Short sessions: a killed instance's partitions move within seconds (tests kill it on purpose).
        broker_session_timeout=8.0,
        broker_heartbeat_interval=2.0,
        stream_recovery_delay=0.0,
    )
    raw = {"key_type": bytes, "value_type": bytes, "key_serializer": "raw", "value_serializer": "raw"}
    commands_topic = app.topic(settings.topic(WALLET_COMMANDS), **raw)
    events_topic = app.topic(settings.topic(WALLET_EVENTS), **raw)
    dlq_topic = app.topic(settings.topic(dlq_name(WALLET_COMMANDS)), **raw)
    store_by_key = app.Table(
        TABLE_NAME, default=None, partitions=PLAYER_PARTITIONS, options={"driver": "rocksdict"}, key_type=bytes, value_type=bytes
    )

    @app.agent(commands_topic, concurrency=1)
    async def apply_wallet_commands(stream):
        async for event in stream.events():
            message = event.message
            try:
                outputs = handle(store_by_key, message.key, message.value, round(message.timestamp * 1000),
                                 (message.topic, message.partition, message.offset))
                crash_point("wallet.after_table_write")
                for output in outputs:
                    topic = dlq_topic if output.dead_letter else events_topic
                    future = await topic.send(key=output.key, value=output.value, headers=output.headers)
                    future.add_done_callback(_after_produce)
            except Exception as error:  # noqa: BLE001 - a broken invariant, store or producer: stop, never skip
                _die(f"wallet: stopping at {message.topic}/{message.partition}/{message.offset}: {error!r}")

    @app.task
    async def announce_ready() -> None:
        await app.tables.recovery.completed.wait()
        while not app.consumer.assignment():
            await app.sleep(0.05)
        await app.tables.recovery.completed.wait()
        recovery_ms = (time.monotonic() - started_monotonic) * 1000
        sys.stderr.write(f"wallet: recovered table and assigned {len(app.consumer.assignment())} partitions "
                         f"{recovery_ms:.0f} ms after start\n")
        from reelstream.processes import ready_line

        sys.stderr.write(ready_line("wallet") + "\n")
        sys.stderr.flush()

    return app


def _die(reason: str) -> None:
    """A faust agent that raises is silently stopped while the worker lives on; a wallet must stop instead, unacked,
    so the record is decided again after the restart."""
    import traceback

    traceback.print_exc()
    sys.stderr.write(reason + "\n")
    sys.stderr.flush()
    os._exit(70)


def _after_produce(_future) -> None:
    crash_point("wallet.after_produce")


def data_dir(settings: Settings) -> Path:
    base = Path(os.environ.get("REELSTREAM_WALLET_DATADIR", Path(os.environ.get("REELSTREAM_STATE_DIR", ".reelstream")) / "wallet-data"))
    return base / settings.group("wallet")
