"""A spin request put on another partition than its key's murmur2 partition, through the real broker.

Scenario: a player with money sends a valid request straight to a partition its key does not hash to (as a librdkafka
client with the CRC32 partitioner would). The answer is WRONG_PARTITION on the player's own partition of spin.events,
nothing is journalled and no wager is asked for; the very same request on the right partition then settles.
"""

from __future__ import annotations

import time
import uuid

from kafka import TopicPartition

from shared.kafka import kafka_consumer

from reelstream.client import Settled
from shared.events import decode, encode, envelope
from shared.events.envelope import broker_time
from shared.events.spin import SpinRejected, SpinRequested
from shared.kafka import producer
from shared.partitioning import partition_for
from shared.topics import PLAYER_PARTITIONS

from conftest import client_for, token_for


def answers_by_partition(platform, request_id: uuid.UUID, deadline_s: float = 20.0) -> dict[int, list]:
    reader = kafka_consumer(platform.bootstrap, group_id=None, enable_auto_commit=False)
    try:
        topic = platform.topic("spin.events")
        tps = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic))]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        found: dict[int, list] = {}
        deadline = time.monotonic() + deadline_s
        while not found and time.monotonic() < deadline:
            for tp, records in reader.poll(timeout_ms=200).items():
                for record in records:
                    event = decode(record.value)
                    if getattr(event.data, "request_id", None) == request_id:
                        found.setdefault(tp.partition, []).append((record.key, event))
        return found
    finally:
        reader.close(autocommit=False)


def test_a_request_on_the_wrong_partition_is_refused_on_the_players_own_partition_and_changes_nothing(platform_factory):
    platform = platform_factory()
    player = "wp-1"
    home = partition_for(player.encode(), PLAYER_PARTITIONS)
    away = (home + 3) % PLAYER_PARTITIONS
    request_id = uuid.uuid4()
    data = SpinRequested(
        request_id=request_id,
        player_id=player,
        game="rising-joker",
        stake_minor=100,
        currency="EUR",
        session_token=token_for(player),
    )
    value = encode(envelope(data, source="test-crc32-client", time=broker_time(time.time_ns() // 1_000_000)))
    with client_for(platform) as client:
        client.deposit(player, 10_000, "EUR")
        sender = producer(platform.bootstrap)
        try:
            sent = sender.send(platform.topic("spin.requests"), key=player.encode(), value=value, partition=away)
            sent.get(timeout=10)
        finally:
            sender.close()
        found = answers_by_partition(platform, request_id)
        assert list(found) == [home]
        [(key, rejected)] = found[home]
        assert key == player.encode() and isinstance(rejected.data, SpinRejected)
        assert rejected.data.code == "WRONG_PARTITION"
        assert f"partition {away} but its key hashes to partition {home}" in rejected.data.message
        assert [e for e in platform.read_all("spin.journal") if getattr(e.data, "request_id", None) == request_id] == []
        assert [e for e in platform.read_all("wallet.commands") if e.data.player_id == player][1:] == []  # the deposit
        assert [e for e in platform.read_all("wallet.internal") if e.data.player_id == player] == []  # no debit
        settled = client.spin(player, "rising-joker", 100, "EUR", token_for(player), request_id=request_id)
    assert isinstance(settled, Settled)
    assert settled.balance_after_minor == 10_000 - 100 + settled.win_minor
