"""Consumer groups as Kafka's own tools show them, with lag counted as a read_committed consumer would count it: the
records it would still read between the group's committed offset and the last stable offset (transaction markers and
aborted records are never counted, so a quiet platform shows 0)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from kafka import KafkaConsumer, TopicPartition

from shared.kafka import CONSUMER_SAFETY, admin_client, kafka_consumer

# Reading a long lag to count it exactly is bounded: beyond this many records per partition the lag is "at least".
COUNT_LIMIT = 20_000
READ_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class PartitionLag:
    group: str
    state: str
    members: int
    topic: str
    partition: int
    committed: int
    end: int  # the last stable offset
    lag: int  # committed records a read_committed consumer would still read (a lower bound when `exact` is False)
    exact: bool
    member: str | None  # client id and host of the member it is assigned to


def groups(bootstrap: str, prefix: str = "", only: str | None = None) -> tuple[list[PartitionLag], list[dict]]:
    """Every partition the groups (under `prefix`, or just `only`) have committed offsets for, and each group's
    description (also the groups with no committed offset)."""
    admin = admin_client(bootstrap, client_id="reelstream-ops")
    reader = kafka_consumer(
        bootstrap, group_id=None, client_id="reelstream-ops", **{**CONSUMER_SAFETY, "enable_auto_commit": False}
    )
    try:
        names = sorted(g["group_id"] for g in admin.list_groups() if g["group_id"].startswith(prefix))
        names = [n for n in names if only is None or n == only]
        described = admin.describe_groups(names) if names else {}
        rows = []
        for name in names:
            committed = {
                tp: meta.offset
                for tp, meta in admin.list_group_offsets({name: None}).get(name, {}).items()
                if meta.offset is not None and meta.offset >= 0
            }
            rows += _group_rows(reader, name, described[name], committed)
        return rows, [described[name] for name in names]
    finally:
        reader.close(autocommit=False)
        admin.close()


def _owners(description: dict) -> dict[tuple[str, int], str]:
    owners = {}
    for member in description.get("members", ()):
        label = f"{member['client_id']}@{member['client_host'].lstrip('/')}"
        for assigned in (member.get("member_assignment") or {}).get("assigned_partitions", ()):
            for partition in assigned["partitions"]:
                owners[(assigned["topic"], partition)] = label
    return owners


def _group_rows(reader: KafkaConsumer, name: str, description: dict, committed: dict) -> list[PartitionLag]:
    partitions = sorted(committed, key=lambda tp: (tp.topic, tp.partition))
    ends = reader.end_offsets(partitions) if partitions else {}
    owners = _owners(description)
    rows = []
    for tp in partitions:
        lag, exact = committed_records_between(reader, tp, committed[tp], ends[tp])
        rows.append(
            PartitionLag(
                name,
                description["group_state"],
                len(description.get("members", ())),
                tp.topic,
                tp.partition,
                committed[tp],
                ends[tp],
                lag,
                exact,
                owners.get((tp.topic, tp.partition)),
            )
        )
    return rows


def committed_records_between(reader: KafkaConsumer, tp: TopicPartition, start: int, end: int) -> tuple[int, bool]:
    """How many records a read_committed consumer reads from `start` up to `end` (markers are offsets, not records)."""
    if start >= end:
        return 0, True
    reader.assign([tp])
    reader.seek(tp, start)
    counted, deadline = 0, time.monotonic() + READ_TIMEOUT_S
    while reader.position(tp) < end and counted < COUNT_LIMIT and time.monotonic() < deadline:
        for batch in reader.poll(timeout_ms=200, max_records=2_000).values():
            counted += sum(1 for record in batch if record.offset < end)
    return min(counted, COUNT_LIMIT), reader.position(tp) >= end
