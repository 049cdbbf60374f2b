"""The bytes a settled spin adds, by topic and by bucket: kept forever, the platform's, snapshots and the broker's own
topics apart; each partition counted once however many replicas hold it."""

from __future__ import annotations

from bench.topic_bytes import bucket, bytes_per_spin, kept_forever, replica_sizes
from shared.topics import spec

PREFIX = "benchx."


def _described(*brokers: dict[str, dict[int, int]]) -> list[dict]:
    """DescribeLogDirs answers, one a broker: {topic: {partition: size}}."""
    return [
        {
            "broker": number,
            "log_dirs": [
                {
                    "log_dir": "/data",
                    "topics": [
                        {
                            "name": name,
                            "partitions": [{"partition_index": p, "partition_size": size} for p, size in sizes.items()],
                        }
                        for name, sizes in topics.items()
                    ],
                }
            ],
        }
        for number, topics in enumerate(brokers)
    ]


def test_the_event_topics_are_kept_forever_and_the_commands_and_meters_are_not():
    assert kept_forever(spec("spin.events"))
    assert kept_forever(spec("spin.journal"))
    assert not kept_forever(spec("spin.requests"))
    assert not kept_forever(spec("jackpot.meters"))
    assert not kept_forever(spec("spin.snapshots"))


def test_each_topic_counts_in_one_bucket():
    assert bucket(PREFIX + "wallet.events") == "kept_forever"
    assert bucket(PREFIX + "wallet.internal") == "platform"
    assert bucket(PREFIX + "spin.answers.demo-a") == "platform"
    assert bucket(PREFIX + "wallet.snapshots") == "snapshots"
    assert bucket("__consumer_offsets") == "broker_topics"
    assert bucket(PREFIX + "monitor-copies-changelog") == "undeclared"


def test_a_partition_counts_once_on_its_largest_replica_and_other_deployments_not_at_all():
    described = _described(
        {PREFIX + "spin.events": {0: 100, 1: 50}, "other.spin.events": {0: 999}},
        {PREFIX + "spin.events": {0: 90}, "__transaction_state": {0: 7}},
    )

    sizes = replica_sizes(described, PREFIX)

    assert sizes == {(PREFIX + "spin.events", 0): 100, (PREFIX + "spin.events", 1): 50, ("__transaction_state", 0): 7}


def test_bytes_a_spin_sum_the_kept_forever_topics_into_the_platform_and_keep_snapshots_and_broker_topics_apart():
    start = {(PREFIX + "spin.events", 0): 1000, (PREFIX + "spin.requests", 0): 0}
    end = {
        (PREFIX + "spin.events", 0): 1000 + 2 * 3000,
        (PREFIX + "spin.requests", 0): 2 * 500,
        (PREFIX + "spin.snapshots", 0): 2 * 4000,
        ("__consumer_offsets", 3): 2 * 100,
    }

    added = bytes_per_spin(start, end, PREFIX, spins=2)

    assert added["kept_forever"] == 3000
    assert added["platform"] == 3500
    assert added["snapshots"] == 4000
    assert added["broker_topics"] == 100
    assert added["by_topic"] == {
        "__consumer_offsets": 100,
        "spin.events": 3000,
        "spin.requests": 500,
        "spin.snapshots": 4000,
    }
