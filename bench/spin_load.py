"""The spins bench's load generator: spin requests out, first answers in, on one asyncio loop (aiokafka)."""

# It shares the machine's cores with the system under test, so it is built to cost little: one event loop instead of
# kafka-python's producer and consumer threads (several times less CPU a spin; docs/spin.md). The open-loop pacing
# sends, every TICK_S, the requests whose due instant has passed, and latency is measured from that due instant, so the
# ticks can only add to it.

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import orjson
from aiokafka import TopicPartition

from bench.kafka import percentiles_ms
from shared.events.spin import SpinRejected, SpinSettled
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, AIOKAFKA_PRODUCER_SAFETY, aio_consumer, aio_producer
from shared.topics import SPIN_EVENTS
from shared.topics import spec as topic_spec

TICK_S = 0.010
_ANSWER_TYPES = frozenset({SpinSettled.TYPE, SpinRejected.TYPE})
Request = tuple[uuid.UUID, bytes, bytes]  # request id, key, value


@dataclass
class Answers:
    """When each request's first answer was read from spin.events (perf_counter and wall clock)."""

    at: dict[uuid.UUID, float] = field(default_factory=dict)
    wall: dict[uuid.UUID, float] = field(default_factory=dict)
    refused: dict[uuid.UUID, str] = field(default_factory=dict)  # request id -> the rejection's code

    @property
    def settled(self) -> int:
        return len(self.at) - len(self.refused)

    @property
    def codes(self) -> dict[str, int]:
        """Every rejection read so far, by code."""
        return dict(Counter(self.refused.values()))

    def tally(self, ids) -> dict:
        """Of these requests: how many were settled, and the rejections by code (a bench must not count those)."""
        codes = dict(Counter(self.refused[rid] for rid in ids if rid in self.refused))
        answered = sum(1 for rid in ids if rid in self.at)
        return {"settled": answered - sum(codes.values()), "rejected": codes}

    def take(self, value: bytes, now: float, wall: float) -> None:
        # Only the answer's type, request id and code: a full validation of every answer costs CPU the platform needs.
        raw = orjson.loads(value)
        type_, data = raw.get("type"), raw.get("data") or {}
        if type_ not in _ANSWER_TYPES:
            return
        request_id = uuid.UUID(data["request_id"])
        if request_id in self.at:
            return
        self.at[request_id], self.wall[request_id] = now, wall
        if type_ == SpinRejected.TYPE:
            self.refused[request_id] = data["code"]


class LoadGenerator:
    """Sends spin requests to `requests_topic` and reads answers from the end of `answers_topic`."""

    def __init__(self, bootstrap: str, requests_topic: str, answers_topic: str) -> None:
        """answers_topic: a (prefixed) spin.events, created as declared in shared.topics."""
        self.requests_topic, self.answers_topic = requests_topic, answers_topic
        self.producer = aio_producer(bootstrap, client_id="bench-spins", **{**AIOKAFKA_PRODUCER_SAFETY, "linger_ms": 0})
        self.reader = aio_consumer(
            bootstrap=bootstrap, group_id=None, client_id="bench-spins-answers", **AIOKAFKA_CONSUMER_SAFETY
        )
        self.answers = Answers()
        self._reading: asyncio.Task | None = None

    async def start(self) -> None:
        await self.producer.start()
        await self.reader.start()
        tps = [TopicPartition(self.answers_topic, p) for p in range(topic_spec(SPIN_EVENTS).partitions)]
        self.reader.assign(tps)
        await self.reader.seek_to_end(*tps)
        for tp in tps:
            await self.reader.position(tp)  # resolved now: answers to the first requests are not skipped
        self._reading = asyncio.create_task(self._read())

    async def stop(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            await asyncio.gather(self._reading, return_exceptions=True)
        await self.reader.stop()
        await self.producer.stop()

    async def _read(self) -> None:
        while True:
            polled = await self.reader.getmany(timeout_ms=200)
            now, wall = time.perf_counter(), time.time()
            for records in polled.values():
                for record in records:
                    self.answers.take(record.value, now, wall)

    async def send_all(self, topic: str, records: list[tuple[bytes, bytes]], headers: list | None = None) -> None:
        """Send and wait for every acknowledgement (deposits, warm-up); `headers` per record (signed deposits)."""
        futures = [
            await self.producer.send(topic, value, key=key, headers=headers[i] if headers else None)
            for i, (key, value) in enumerate(records)
        ]
        await asyncio.gather(*futures)

    async def wait_answers(self, ids: list[uuid.UUID], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and any(rid not in self.answers.at for rid in ids):
            await asyncio.sleep(0.05)

    async def burst(self, batch: list[Request], timeout_s: float = 300) -> dict:
        started = time.perf_counter()
        await self.send_all(self.requests_topic, [(key, value) for _, key, value in batch])
        await self.wait_answers([rid for rid, _, _ in batch], timeout_s)
        answered = [self.answers.at[rid] for rid, _, _ in batch if rid in self.answers.at]
        elapsed = max(answered) - started
        tally = self.answers.tally([rid for rid, _, _ in batch])
        return {
            "requests": len(batch),
            "answered": len(answered),
            **tally,
            "seconds": round(elapsed, 2),
            "spins_per_s": round(tally["settled"] / elapsed, 1),  # settled spins only: a rejection is no spin
        }

    async def paced(
        self, batch: list[Request], rate: float, timeout_s: float = 120
    ) -> tuple[dict, dict[uuid.UUID, float]]:
        """Open loop: request i is due at start + i / rate; latency = answer read - due instant."""
        due_at: dict[uuid.UUID, float] = {}
        due_wall: dict[uuid.UUID, float] = {}
        lag: list[float] = []
        futures = []
        started, started_wall = time.perf_counter(), time.time()
        sent = 0
        while sent < len(batch):
            now = time.perf_counter()
            while sent < len(batch) and (due := started + sent / rate) <= now:
                request_id, key, value = batch[sent]
                due_at[request_id], due_wall[request_id] = due, started_wall + (due - started)
                lag.append(now - due)
                futures.append(await self.producer.send(self.requests_topic, value, key=key))
                sent += 1
            await asyncio.sleep(max(TICK_S, started + sent / rate - time.perf_counter()))
        await asyncio.gather(*futures)
        await self.wait_answers(list(due_at), timeout_s)
        took = [
            self.answers.at[rid] - due
            for rid, due in due_at.items()
            if rid in self.answers.at and rid not in self.answers.refused
        ]
        pacing, quarter = percentiles_ms(lag), max(1, len(took) // 4)
        return (
            {
                "rate_per_s": round(rate, 1),
                "requests": len(batch),
                "answered": sum(1 for rid in due_at if rid in self.answers.at),
                **self.answers.tally(list(due_at)),  # the latency figures are of settled spins only
                **percentiles_ms(took),
                "send_lag_p50_ms": pacing["p50_ms"],
                "send_lag_p99_ms": pacing["p99_ms"],
                "tick_ms": TICK_S * 1000,
                # stationary or growing: a queue that builds up shows as a last quarter far above the first
                "first_quarter_p50_ms": percentiles_ms(took[:quarter])["p50_ms"],
                "last_quarter_p50_ms": percentiles_ms(took[-quarter:])["p50_ms"],
            },
            due_wall,
        )
