"""Ops over Kafka and the projection: replay a range (into a new topic or the projection), list and re-drive dead
letters (once: a marker per dead letter in projector_control.dlq_redrives), reset an idle consumer group."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from aiokafka import TopicPartition

from shared.events import DecodeError, Envelope, decode, decode_all, epoch_ms
from shared import assigned
from shared import dead_letters as dl
from ops import markers
from ops.rules import REPLAY_HEADER, PartitionRange, clamp, refusal_of_redrive_letter

Tick = Callable[[int], None]


@dataclass
class Summary:
    read: int = 0
    written: int = 0
    new_events: int = 0
    undecodable: int = 0
    skipped: int = 0
    types: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


async def plan_ranges(
    bootstrap: str,
    topic: str,
    *,
    from_offset: int | None = None,
    to_offset: int | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[PartitionRange]:
    """Per partition, the offsets [start, end) to read: by offsets, or by broker time (first record at/after)."""
    kafka = assigned.consumer(bootstrap, role="ops")
    await kafka.start()
    try:
        partitions = await assigned.partitions_of(bootstrap, (topic,), role="ops")
        firsts = await kafka.beginning_offsets(partitions)
        ends = await kafka.end_offsets(partitions)
        starts = await _offsets_at(kafka, partitions, since) if since else {}
        stops = await _offsets_at(kafka, partitions, until) if until else {}
        return [
            clamp(tp.partition, starts.get(tp, from_offset), stops.get(tp, to_offset), firsts[tp], ends[tp])
            for tp in partitions
        ]
    finally:
        await kafka.stop()


async def _offsets_at(kafka, partitions: list[TopicPartition], moment: datetime) -> dict[TopicPartition, int]:
    found = await kafka.offsets_for_times({tp: epoch_ms(moment) for tp in partitions})
    ends = await kafka.end_offsets(partitions)
    return {tp: (found[tp].offset if found.get(tp) else ends[tp]) for tp in partitions}


async def read_ranges(bootstrap: str, topic: str, ranges: list[PartitionRange]) -> AsyncIterator[list]:
    """The records of the ranges, in batches (partition order kept)."""
    wanted = {r.partition: r for r in ranges if r.size}
    if not wanted:
        return
    kafka = assigned.consumer(bootstrap, role="ops")
    await kafka.start()
    try:
        kafka.assign([TopicPartition(topic, p) for p in wanted])
        for partition, r in wanted.items():
            kafka.seek(TopicPartition(topic, partition), r.start)
        done: set[int] = set()
        while len(done) < len(wanted):
            fetched = await kafka.getmany(timeout_ms=500, max_records=2000)
            batch = []
            for tp, records in fetched.items():
                batch += [rec for rec in records if rec.offset < wanted[tp.partition].end]
                if records and records[-1].offset >= wanted[tp.partition].end - 1:
                    done.add(tp.partition)
            for partition, r in wanted.items():
                if partition not in done and await kafka.position(TopicPartition(topic, partition)) >= r.end:
                    done.add(partition)
            if batch:
                yield batch
    finally:
        await kafka.stop()


async def replay_to_topic(
    bootstrap: str, topic: str, ranges: list[PartitionRange], target: str, *, dry_run: bool, tick: Tick = lambda n: None
) -> Summary:
    """Copy records (key, value, headers + where they came from) to the same partition of a new topic."""
    summary = Summary()
    producer = None if dry_run else assigned.producer(bootstrap, role="ops")
    if producer:
        await _ensure_topic_like(bootstrap, topic, target)
        await producer.start()
    try:
        async for records in read_ranges(bootstrap, topic, ranges):
            futures = []
            for rec in records:
                summary.read += 1
                summary.types[_type_of(rec.value)] += 1
                if producer:
                    headers = list(rec.headers or ()) + [
                        (REPLAY_HEADER, f"{topic}/{rec.partition}/{rec.offset}".encode())
                    ]
                    futures.append(
                        await producer.send(target, rec.value, key=rec.key, partition=rec.partition, headers=headers)
                    )
            await asyncio.gather(*futures)
            summary.written += len(futures)
            tick(len(records))
    finally:
        if producer:
            await producer.stop()
    return summary


class ProjectionTarget(Protocol):
    """Where a replay into the projection writes (the projector's adapter, given by the caller)."""

    async def apply(self, events: list[tuple[Envelope, Any]], *, dry_run: bool) -> int: ...


async def replay_to_projection(
    bootstrap: str,
    topic: str,
    ranges: list[PartitionRange],
    projection: ProjectionTarget,
    *,
    dry_run: bool,
    tick: Tick = lambda n: None,
) -> Summary:
    """Apply records to the live projection (events already there are skipped by id; positions do not move)."""
    summary = Summary()
    async for records in read_ranges(bootstrap, topic, ranges):
        events = []
        for rec in records:
            summary.read += 1
            try:
                envs = decode_all(rec.value, expect_kind="event")  # a batch envelope's items, in order
            except DecodeError:
                summary.undecodable += 1
                continue
            for env in envs:
                summary.types[env.type] += 1
                events.append((env, rec))
        summary.new_events += await projection.apply(events, dry_run=dry_run)
        tick(len(records))
    return summary


def _type_of(value: bytes | None) -> str:
    try:
        return decode(value).type
    except DecodeError as error:
        return f"undecodable ({error.field})"


async def _ensure_topic_like(bootstrap: str, source: str, target: str) -> None:
    def create() -> None:
        from kafka.admin import NewTopic

        from shared.kafka import admin_client

        admin = admin_client(bootstrap, client_id="reelstream-ops", role="ops")
        try:
            if target in set(admin.list_topics()):
                return
            partitions = len(admin.describe_topics([source])[0]["partitions"])
            admin.create_topics(
                [NewTopic(target, partitions, 1, topic_configs={"retention.ms": "-1"})], raise_errors=True
            )
        finally:
            admin.close()

    await asyncio.to_thread(create)


@dataclass(frozen=True)
class DeadLetter:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list
    origin: dl.DeadLetterOrigin | None
    redriven: bool


async def dead_letters(bootstrap: str, database_url: str, dlq_topic: str) -> list[DeadLetter]:
    ranges = await plan_ranges(bootstrap, dlq_topic)
    conn = await markers.connect(database_url)
    try:
        done = await markers.redriven(conn, dlq_topic)
    finally:
        await conn.close()
    letters = []
    async for records in read_ranges(bootstrap, dlq_topic, ranges):
        for rec in records:
            headers = list(rec.headers or ())
            letters.append(
                DeadLetter(
                    rec.partition,
                    rec.offset,
                    rec.key,
                    rec.value,
                    headers,
                    dl.origin_of(headers),
                    (rec.partition, rec.offset) in done,
                )
            )
    return letters


async def redrive(
    bootstrap: str,
    database_url: str,
    dlq_topic: str,
    *,
    dry_run: bool,
    force: bool = False,
    only_offsets: set[int] | None = None,
    tick: Tick = lambda n: None,
) -> Summary:
    """Put each not-yet-re-driven dead letter back on its source topic with a re-drive marker, then record the marker
    (a crash in between re-sends it once more: consumers de-duplicate by event id)."""
    summary = Summary()
    letters = await dead_letters(bootstrap, database_url, dlq_topic)
    producer = None if dry_run else assigned.producer(bootstrap, role="ops")
    conn = await markers.connect(database_url)
    if producer:
        await producer.start()
    try:
        for letter in letters:
            summary.read += 1
            tick(1)
            if letter.redriven or (only_offsets is not None and letter.offset not in only_offsets):
                summary.skipped += 1
                continue
            source = letter.origin.topic if letter.origin else dlq_topic.removesuffix(".dlq")
            refusal = refusal_of_redrive_letter(source, letter.value)
            if refusal is not None:
                summary.skipped += 1
                summary.notes.append(f"offset {letter.offset}: {refusal}; not re-driven")
                continue
            try:
                summary.types[decode(letter.value, expect_kind="event").type] += 1
            except DecodeError as error:
                if not force:
                    summary.undecodable += 1
                    summary.notes.append(f"offset {letter.offset}: still undecodable ({error}); not re-driven")
                    continue
            if dry_run:
                summary.written += 1
                continue
            marker = dl.redrive_marker(dlq_topic, letter.partition, letter.offset)
            await producer.send_and_wait(
                source, letter.value, key=letter.key, headers=dl.redrive_headers(letter.headers, marker)
            )
            await markers.mark(conn, dlq_topic, letter.partition, letter.offset, source)
            summary.written += 1
    finally:
        await conn.close()
        if producer:
            await producer.stop()
    return summary


@dataclass(frozen=True)
class GroupReset:
    state: str
    members: int
    moves: dict[tuple[str, int], tuple[int | None, int]]  # (topic, partition) -> (committed now, target)


def plan_group_reset(bootstrap: str, group: str, topics: list[str], to: str) -> GroupReset:
    """What resetting `group` on `topics` would do. to: earliest | latest | offset:N | time:<ISO 8601>."""
    from kafka import TopicPartition as KTP

    from shared.kafka import admin_client, kafka_consumer

    admin = admin_client(bootstrap, client_id="reelstream-ops", role="ops")
    reader = kafka_consumer(bootstrap, role="ops", group_id=None, enable_auto_commit=False)
    try:
        described = admin.describe_groups([group])[group]
        committed = admin.list_group_offsets({group: None}).get(group, {})
        partitions = [KTP(t, p["partition_index"]) for t in topics for p in admin.describe_topics([t])[0]["partitions"]]
        firsts, ends = reader.beginning_offsets(partitions), reader.end_offsets(partitions)
        if to.startswith("time:"):
            found = reader.offsets_for_times({tp: epoch_ms(datetime.fromisoformat(to[5:])) for tp in partitions})
        moves = {}
        for tp in partitions:
            if to == "earliest":
                target = firsts[tp]
            elif to == "latest":
                target = ends[tp]
            elif to.startswith("offset:"):
                target = min(max(int(to[7:]), firsts[tp]), ends[tp])
            elif to.startswith("time:"):
                target = found[tp].offset if found.get(tp) else ends[tp]
            else:
                raise ValueError(f"--to must be earliest, latest, offset:N or time:ISO, not {to!r}")
            now = committed.get(tp)
            moves[(tp.topic, tp.partition)] = (getattr(now, "offset", None), target)
        return GroupReset(described["group_state"], len(described["members"]), moves)
    finally:
        reader.close()
        admin.close()


def apply_group_reset(bootstrap: str, group: str, reset: GroupReset) -> None:
    from kafka import TopicPartition as KTP
    from kafka.structs import OffsetAndMetadata

    from shared.kafka import admin_client

    admin = admin_client(bootstrap, client_id="reelstream-ops", role="ops")
    try:
        offsets = {
            KTP(t, p): OffsetAndMetadata(target, "reelstream ops reset-group", -1)
            for (t, p), (_, target) in reset.moves.items()
        }
        admin.alter_group_offsets(group, offsets)
    finally:
        admin.close()
