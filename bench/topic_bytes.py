"""The bytes a deployment's topics hold, as the broker reports them (DescribeLogDirs), and what a settled spin adds:
by topic, over the topics kept forever, over every declared topic; snapshots and the broker's own topics apart."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from shared.kafka import admin_client
from shared.topics import TopicSpec, declared_name, spec

# The broker's own topics, shared by every client of the broker: counted apart, never as a deployment's bytes.
BROKER_TOPICS = ("__transaction_state", "__consumer_offsets")

Sizes = dict[tuple[str, int], int]


def kept_forever(spec: TopicSpec) -> bool:
    """A topic whose records are never deleted: no time limit and deletion (not compaction) as its clean-up."""
    return spec.configs.get("retention.ms") == "-1" and spec.configs.get("cleanup.policy") == "delete"


def log_sizes(bootstrap: str, prefix: str) -> Sizes:
    """(topic, partition) -> bytes of its log (segment files: record batches with their headers, transaction
    markers, aborted data) on one replica, for the topics under `prefix` and the broker's own topics."""
    admin = admin_client(bootstrap, client_id="reelstream-bench-bytes")
    try:
        described = admin.describe_log_dirs()
    finally:
        admin.close()
    return replica_sizes(described, prefix)


def replica_sizes(described: Iterable[Mapping[str, Any]], prefix: str) -> Sizes:
    """From DescribeLogDirs answers (one a broker): each partition's size on the largest of its replicas, so that a
    replication factor does not multiply it and a replica still catching up does not shrink it."""
    sizes: Sizes = {}
    for broker in described:
        for log_dir in broker["log_dirs"]:
            for topic in log_dir["topics"]:
                name = topic["name"]
                if not (name.startswith(prefix) or name in BROKER_TOPICS):
                    continue
                for partition in topic["partitions"]:
                    key = (name, partition["partition_index"])
                    sizes[key] = max(sizes.get(key, 0), partition["partition_size"])
    return sizes


def bucket(topic: str) -> str:
    """Where a topic's bytes count: `kept_forever` (a declared topic kept forever, also part of the platform's),
    `platform` (any other declared topic), `snapshots`, `broker_topics`, or `undeclared` (under the prefix, not in
    shared/topics.py)."""
    if topic in BROKER_TOPICS:
        return "broker_topics"
    try:
        declared = spec(declared_name(topic))
    except ValueError:
        return "undeclared"
    if declared.kind == "snapshot":
        return "snapshots"
    return "kept_forever" if kept_forever(declared) else "platform"


def bytes_per_spin(start: Sizes, end: Sizes, prefix: str, spins: int) -> dict[str, Any]:
    """Bytes appended between two `log_sizes`, a settled spin (rounded to the byte): `kept_forever` (the declared
    topics kept forever), `platform` (every declared topic but the snapshots), `snapshots`, `broker_topics` (the
    broker's own, which every client of the broker writes to), `undeclared`, and each topic under `by_topic`
    (named without `prefix`)."""
    grown: dict[str, int] = {}
    for key, size in end.items():
        grown[key[0]] = grown.get(key[0], 0) + size - start.get(key, 0)
    by_bucket = dict.fromkeys(("kept_forever", "platform", "snapshots", "broker_topics", "undeclared"), 0)
    for topic, added in grown.items():
        by_bucket[bucket(topic)] += added
    by_bucket["platform"] += by_bucket["kept_forever"]

    def per(added: int) -> int:
        return round(added / max(1, spins))

    by_topic = {topic.removeprefix(prefix): per(added) for topic, added in sorted(grown.items()) if added}
    return {**{name: per(added) for name, added in by_bucket.items()}, "by_topic": by_topic}
