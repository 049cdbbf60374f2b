"""A partition's new owner starts its producer while the previous owner's transaction is still open (it was killed
mid-batch): the coordinator answers CONCURRENT_TRANSACTIONS until that transaction's abort markers are written, a
few milliseconds, and start_fencing asks again after FENCE_RETRY_MS, not after aiokafka's 100 ms retry backoff,
which every such takeover paid (shared/kafka.py)."""

from __future__ import annotations

import asyncio
import statistics
import time

from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, aio_producer, start_fencing
from shared.topics import WALLET_EVENTS

TRIES = 3
RETRY_BACKOFF_S = 0.1  # aiokafka's default, which a refused InitProducerId otherwise sleeps before returning


async def _died_mid_transaction(bootstrap: str, topic: str, transactional_id: str) -> None:
    """A producer that began a transaction, wrote to it and never ended it (its process killed): its connections
    are dropped without an abort."""
    producer = aio_producer(bootstrap, role="wallet", transactional_id=transactional_id, **AIOKAFKA_PRODUCER_SAFETY)
    await producer.start()
    await producer.begin_transaction()
    await (await producer.send(topic, b"open", partition=0))
    producer._sender._sender_task.cancel()  # noqa: SLF001 - no EndTxn, as after a SIGKILL
    producer.client._conns.clear()  # noqa: SLF001
    producer._closed = True  # noqa: SLF001


async def _refused_attempts(bootstrap: str, topic: str, transactional_id: str) -> list[float]:
    """How long each refused InitProducerId of the successor's start took (its backoff included)."""
    await _died_mid_transaction(bootstrap, topic, transactional_id)
    successor = aio_producer(bootstrap, role="wallet", transactional_id=transactional_id, **AIOKAFKA_PRODUCER_SAFETY)
    refused: list[float] = []
    init_pid = successor._sender._do_init_pid  # noqa: SLF001 - timed, not changed

    async def timed(node_id):
        started = time.perf_counter()
        granted = await init_pid(node_id)
        if not granted:
            refused.append(time.perf_counter() - started)
        return granted

    successor._sender._do_init_pid = timed  # noqa: SLF001
    await start_fencing(successor)
    await successor.stop()
    return refused


def test_a_successor_asks_again_soon_while_the_open_transaction_is_aborted(kafka_bootstrap, fresh_prefix):
    topic = fresh_prefix + WALLET_EVENTS
    group = fresh_prefix + "reelstream-wallet"
    refused = [
        attempt
        for n in range(TRIES)
        for attempt in asyncio.run(_refused_attempts(kafka_bootstrap, topic, f"{group}-fence-p{n}"))
    ]
    print(f"refused InitProducerId attempts: {[round(t * 1000) for t in refused]} ms")
    assert refused, "no start met the open transaction: the scenario did not happen"
    assert statistics.median(refused) < RETRY_BACKOFF_S, "a refused attempt waited aiokafka's retry backoff"
