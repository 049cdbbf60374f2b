"""Topics as code: the declared topics are consistent, and drift between declaration and broker is reported."""

from __future__ import annotations

import pytest

from shared.config import COMMAND_RETENTION_MS, DEDUP_WINDOW_MS
from shared.kafka import drift, expected_configs
from shared.topics import ALL_TOPICS, CONTRACT_TOPICS, JACKPOT_METERS, PLAYER_PARTITIONS, spec, with_min_insync


def _as_found(name: str, replication_factor: int = 1) -> dict[str, str]:
    return dict(expected_configs(spec(name), replication_factor))


def test_topic_names_are_unique():
    names = [topic.name for topic in ALL_TOPICS]
    assert len(names) == len(set(names))


def test_player_keyed_topics_are_co_partitioned():
    counts = {topic.partitions for topic in CONTRACT_TOPICS if topic.key == "player id"}
    assert counts == {PLAYER_PARTITIONS}


def test_event_topics_are_kept_forever_and_command_topics_expire_after_the_dedup_window():
    for topic in ALL_TOPICS:
        if topic.kind in ("event", "dlq"):
            assert topic.configs["retention.ms"] == "-1", topic.name
        if topic.kind == "command":
            assert int(topic.configs["retention.ms"]) == COMMAND_RETENTION_MS, topic.name
            assert COMMAND_RETENTION_MS > DEDUP_WINDOW_MS


def test_the_meter_topic_is_compacted():
    assert spec(JACKPOT_METERS).configs["cleanup.policy"] == "compact"


def test_records_of_contract_topics_carry_broker_time():
    for topic in CONTRACT_TOPICS:
        assert topic.configs["message.timestamp.type"] == "LogAppendTime", topic.name


@pytest.mark.parametrize(("replication_factor", "minimum"), [(1, "1"), (2, "1"), (3, "2"), (5, "4")])
def test_min_insync_replicas_follows_the_replication_factor(replication_factor, minimum):
    assert with_min_insync({}, replication_factor)["min.insync.replicas"] == minimum


def test_a_topic_as_declared_has_no_drift():
    topic = spec("wallet.events")
    assert drift(topic, 1, topic.partitions, 1, _as_found("wallet.events")) == ()


def test_a_partition_count_different_from_the_declaration_is_drift():
    topic = spec("wallet.events")
    problems = drift(topic, 1, topic.partitions - 1, 1, _as_found("wallet.events"))
    assert problems == (f"partitions {topic.partitions - 1} (declared {topic.partitions})",)


def test_a_changed_retention_is_drift():
    found = {**_as_found("wallet.events"), "retention.ms": "604800000"}
    problems = drift(spec("wallet.events"), 1, spec("wallet.events").partitions, 1, found)
    assert problems == ("retention.ms=604800000 (declared -1)",)


def test_a_missing_config_is_drift():
    found = _as_found("jackpot.meters")
    del found["cleanup.policy"]
    problems = drift(spec("jackpot.meters"), 1, spec("jackpot.meters").partitions, 1, found)
    assert problems == ("cleanup.policy=None (declared compact)",)


def test_a_cluster_topic_with_one_replica_is_drift():
    topic = spec("spin.requests")
    problems = drift(topic, 3, topic.partitions, 1, _as_found("spin.requests", replication_factor=3))
    assert problems == ("replication factor 1 (declared 3)",)


def test_the_topics_clients_read_stay_uncompressed_and_only_the_platforms_own_take_zstd():
    from shared import operators
    from shared.topics import compressed_by_producers

    read_by_clients = ["spin.events", "wallet.events", "jackpot.meters"]
    read_by_clients += [operators.answers_topic(o) for o in operators.OPERATORS]
    read_by_clients += [operators.wallet_answers_topic(o) for o in operators.OPERATORS]
    for name in read_by_clients:
        assert not compressed_by_producers("bench1." + name), name
    for name in ("spin.journal", "jackpot.events", "wallet.internal", "jackpot.internal", "spin.jackpot-answers"):
        assert compressed_by_producers("bench1." + name), name
    assert not compressed_by_producers("bench1.reelstream-monitor-copies-changelog")
