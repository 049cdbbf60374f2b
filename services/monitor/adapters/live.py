"""What the monitor's process knows besides its tables: readiness, input positions (for its own lag), counts of
records read, the broker figures, and the subscribers of its live pushes."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

from services.monitor.adapters.broker import BrokerFigures

MAX_SUBSCRIBERS = 200


@dataclass
class Live:
    started_monotonic: float = field(default_factory=time.monotonic)
    ready: bool = False
    records: Counter = field(default_factory=Counter)  # topic -> records read
    next_offset: dict = field(default_factory=dict)  # (topic, partition) -> next offset to read
    last_broker_ms: dict = field(default_factory=dict)  # topic -> broker time of the last record read
    alerts_sent: int = 0
    broker: BrokerFigures = field(default_factory=BrokerFigures)
    subscribers: set = field(default_factory=set)
    version: int = 0

    def read(self, topic: str, events) -> None:
        for event in events:
            message = event.message
            self.next_offset[(message.topic, message.partition)] = message.offset + 1
            self.last_broker_ms[topic] = max(self.last_broker_ms.get(topic, 0), round(message.timestamp * 1000))
        self.records[topic] += len(events)
        self.changed()

    def changed(self) -> None:
        """Wake the live pushes (each subscriber coalesces: one push per tick at most)."""
        self.version += 1
        for queue in list(self.subscribers):
            if queue.empty():
                queue.put_nowait(self.version)

    def subscribe(self) -> asyncio.Queue | None:
        if len(self.subscribers) >= MAX_SUBSCRIBERS:
            return None
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        self.subscribers.add(queue)
        return queue
