"""shared.kafka.describe on a cluster whose answering broker has not applied a topic's creation yet."""

from __future__ import annotations

from shared.kafka import describe


class _Admin:
    """A broker that learns of the topic after `unknown_for` describes (then: 2 partitions, 3 replicas)."""

    def __init__(self, unknown_for: int) -> None:
        self.unknown_for = unknown_for
        self.asked = 0

    def describe_topics(self, names):
        self.asked += 1
        if self.asked <= self.unknown_for:
            return [{"name": name, "error_code": 3, "partitions": []} for name in names]
        partition = {"replica_nodes": [1, 2, 3]}
        return [{"name": name, "error_code": 0, "partitions": [partition, partition]} for name in names]

    def describe_configs(self, resources, config_filter):
        known = self.asked > self.unknown_for
        return {"topic": {r.name: ({"cleanup.policy": {"value": "delete"}} if known else {}) for r in resources}}


def test_a_topic_the_answering_broker_does_not_know_yet_is_described_once_it_does():
    admin = _Admin(unknown_for=3)
    [found] = describe(admin, ["t.wallet.events"])
    assert found == {"name": "t.wallet.events", "partitions": 2, "replicas": 3, "configs": {"cleanup.policy": "delete"}}
    assert admin.asked == 4


def test_a_topic_still_unknown_after_the_settle_time_is_reported_empty_for_the_drift_check_to_name():
    [found] = describe(_Admin(unknown_for=10**6), ["t.wallet.events"], settle_s=0.3)
    assert found == {"name": "t.wallet.events", "partitions": 0, "replicas": 0, "configs": {}}
