"""Scenario: on fresh topics, the wallet writes its events in transactions and a client writes a spin request without
one; the spin's group commits the offset after the last record it read of each. The ops page's broker look reads the
group as 0 records behind (the commit marker after the wallet's transaction is no record), and as 1 behind once a
record arrives that the group has not read."""

from __future__ import annotations

import uuid

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from services.monitor.adapters.broker import BrokerFigures, refresh
from shared.kafka import producer


def _commit(make_consumer, group: str, offsets: dict[TopicPartition, int]) -> None:
    committer = make_consumer(group_id=group)
    committer.assign(list(offsets))
    committer.commit({tp: OffsetAndMetadata(offset, "", -1) for tp, offset in offsets.items()})


def _lag(kafka_bootstrap: str, prefix: str) -> int:
    figures = BrokerFigures()
    refresh(figures, kafka_bootstrap, prefix)
    assert figures.reachable, figures.error
    return figures.lag_by_group["reelstream-spin"]


def test_an_idle_group_reads_no_lag_and_a_new_record_reads_one(kafka_bootstrap, fresh_prefix, make_consumer):
    events = TopicPartition(f"{fresh_prefix}wallet.events", 0)
    requests = TopicPartition(f"{fresh_prefix}spin.requests", 0)
    wallet = producer(kafka_bootstrap, transactional_id=f"{fresh_prefix}reelstream-wallet-{uuid.uuid4().hex}")
    client = producer(kafka_bootstrap)
    try:
        wallet.init_transactions()
        wallet.begin_transaction()
        for n in range(3):
            wallet.send(events.topic, key=b"p1", value=f"event {n}".encode(), partition=0)
        wallet.commit_transaction()
        client.send(requests.topic, key=b"p1", value=b"request", partition=0).get(timeout=10)
        group = f"{fresh_prefix}reelstream-spin"
        _commit(make_consumer, group, {events: 3, requests: 1})  # after the last record read of each

        assert _lag(kafka_bootstrap, fresh_prefix) == 0

        client.send(requests.topic, key=b"p1", value=b"another", partition=0).get(timeout=10)
        assert _lag(kafka_bootstrap, fresh_prefix) == 1
    finally:
        wallet.close(timeout=10)
        client.close(timeout=10)
