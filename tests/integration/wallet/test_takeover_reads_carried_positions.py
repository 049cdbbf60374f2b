"""The chaos run's takeover watch sees where a service stands from the positions its transactions carry on their
records, not only from the consumer group, which learns them every few seconds (shared/input_position.py).

Scenario: the real wallet applies a first batch of commands, then a second one sent right after it; the watch's
positions (`Committed.now`, and `at_kill` after a final read of the carrying records) reach the end of every
wallet.commands partition the batches wrote, as soon as the second batch's facts are out. The consumer group's own
offsets are asserted only not to be ahead of them."""

from __future__ import annotations

import pytest
from kafka import TopicPartition

from reelstream.chaos.takeover import Committed
from shared.config import load_settings
from shared.kafka import admin_client, kafka_consumer
from shared.topics import PLAYER_PARTITIONS

from wallet_harness import read_until, send, start, wager_commands

pytestmark = pytest.mark.integration


def _ends(bootstrap: str, topic: str) -> dict[TopicPartition, int]:
    reader = kafka_consumer(bootstrap, group_id=None, client_id="it-takeover-ends")
    try:
        ends = reader.end_offsets([TopicPartition(topic, p) for p in range(PLAYER_PARTITIONS)])
    finally:
        reader.close()
    return {tp: end for tp, end in ends.items() if end > 0}


def test_the_takeover_watch_reads_the_positions_the_wallets_transactions_carry(kafka_bootstrap, prefix, tmp_path):
    settings = load_settings({"KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix})
    service = start(kafka_bootstrap, prefix, tmp_path / "data", tmp_path / "logs")
    committed = None
    try:
        first = wager_commands(players=4, wagers=1)
        second = [command for command in wager_commands(players=4, wagers=3) if command not in first]
        send(kafka_bootstrap, prefix, first)
        read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(first), 60)
        committed = Committed(settings, "wallet")
        send(kafka_bootstrap, prefix, second)
        read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(first) + len(second), 60)
        ends = _ends(kafka_bootstrap, prefix + "wallet.commands")
        seen = committed.at_kill()
        group_id = settings.group("wallet")
        admin = admin_client(kafka_bootstrap, client_id="it-takeover-group")
        try:
            group = {tp: meta.offset for tp, meta in admin.list_group_offsets({group_id: None})[group_id].items()}
        finally:
            admin.close()
    finally:
        service.stop()
        if committed is not None:
            committed.close()
    assert ends, "the commands were written"
    assert {tp: seen[tp] for tp in ends} == ends, "every command partition's position reached its end"
    assert all(group.get(tp, 0) <= seen[tp] for tp in ends)
