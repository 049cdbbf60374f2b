"""The seamless saga's loop on a real broker for the tests that write records at it: the loop started and stopped in
this process (a patient bet deadline, so writing many records never times a bet out), records written as a principal,
records signed as a writer, and wallet.seamless's facts read as the audit reads them, trusted ones only."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import datetime, timezone

from shared import records
from shared.events import encode, envelope
from shared.kafka import producer
from shared.topics import WALLET_SEAMLESS

from services.audit.adapters.topics import read_topics
from services.seamless_saga.adapters.service import SeamlessService
from services.seamless_saga.core.decide import SeamlessCore
from tests.integration.spin.conftest import Platform
from tests.support.seamless_saga import OPERATOR, PLAYER, WALLET

# The bet's answer may come as late as writing the hostile records takes: it must not time out meanwhile.
PATIENT = replace(WALLET, bet_timeout_ms=3_600_000)
CORE = SeamlessCore(lambda: 0.0, lambda operator_id: PATIENT if operator_id == OPERATOR else None)


class Saga:
    def __init__(self, settings) -> None:
        self.settings, self.task, self.stopping = settings, None, asyncio.Event()

    async def start(self) -> SeamlessService:
        ready, self.stopping = asyncio.Event(), asyncio.Event()
        self.service = SeamlessService(self.settings, CORE, ready.set)
        self.task = asyncio.create_task(self.service.loop.run(self.stopping))
        await asyncio.wait_for(ready.wait(), 90)
        return self.service

    async def stop(self) -> None:
        self.stopping.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, 60)


def write(platform: Platform, role: str, topic: str, items) -> None:
    """(key, value, headers, partition) of `items` written by `role`, flushed."""
    writer = producer(platform.bootstrap, role=role, client_id=f"hostile-{role}")
    try:
        for key, value, headers, partition in items:
            writer.send(platform.topic(topic), key=key, value=value, headers=headers, partition=partition)
        writer.flush(30)
    finally:
        writer.close(10)


def signed(writer: str, topic: str, data, partition: int | None = None, id_: uuid.UUID | None = None):
    """(key, value, headers, partition) of `data` about PLAYER, signed by `writer`."""
    value = encode(envelope(data, source="test", time=datetime.now(timezone.utc), id=id_ or uuid.uuid4()))
    key = PLAYER.encode()
    return key, value, records.signed_headers(writer, topic, key, value), partition


def seamless_facts(platform: Platform) -> list:
    """wallet.seamless's facts its owner wrote, read as the audit reads the topic (its hostile records are there too,
    some with header names that are not UTF-8, which kafka-python's reader cannot get past)."""
    read, _ = read_topics(platform.bootstrap, platform.prefix, (WALLET_SEAMLESS,))
    trusted = [records.trusted_event(WALLET_SEAMLESS, record) for record in read]
    return [event for event, problem in trusted if problem is None]
