"""The read side of the probe round: group positions past the records, the projection's positions and rows, the
monitor's count, and the audit (incremental from its own checkpoint) with what its ledger and pools show."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import asyncpg
from kafka import TopicPartition
from kafka.errors import KafkaError

from ops.groups import committed_records_between, groups
from reelstream.chaos.campaign_book import ProbeBook
from reelstream.chaos.campaign_report import Finding
from reelstream.monitor_process import get_json
from services.audit.core.trust import CHECK as UNTRUSTED  # records claiming a writer they cannot prove: not money
from services.projector.adapters.kafka_io import SOURCE_TOPICS
from shared.config import Settings
from shared.kafka import CONSUMER_SAFETY, kafka_consumer
from shared.topics import DLQ_TOPICS

POLL_S = 0.5
MONEY_SERVICES = ("wallet", "jackpot", "spin")
# A reader of a partition's tail may meet the hostile record a consumer is stuck on: it fails as that consumer did.
READ_ERRORS = (KafkaError, UnicodeDecodeError, ValueError, AssertionError)


def committed_past(admin, group: str, topic: str, partition: int, offset: int, deadline: float) -> bool:
    """Whether `group` commits an offset past `offset` of the partition before the deadline."""
    tp = TopicPartition(topic, partition)
    while time.monotonic() < deadline:
        committed = admin.list_group_offsets({group: None}).get(group, {}).get(tp)
        if committed is not None and committed.offset > offset:
            return True
        time.sleep(POLL_S)
    return False


def caught_up(settings: Settings, deadline: float) -> list[Finding]:
    """Each money service's group has read every record of every partition it committed (markers not counted)."""
    behind: dict[str, str] = {}
    for service in MONEY_SERVICES:
        group = f"{settings.topic_prefix}reelstream-{service}"
        while True:
            try:
                rows, _ = groups(settings.kafka_bootstrap_servers, only=group)
                late = [
                    f"{row.topic.removeprefix(settings.topic_prefix)}[{row.partition}] {row.lag}"
                    for row in rows
                    if row.lag
                ]
                problem = f"records left: {', '.join(late)}" if late else ("no offsets committed" if not rows else "")
            except READ_ERRORS as error:
                problem = f"its next record cannot be read: {type(error).__name__}: {error}"[:300]
            if not problem or time.monotonic() > deadline:
                break
            time.sleep(POLL_S)
        if problem:
            behind[service] = problem
    return [Finding(service, "behind", problem) for service, problem in behind.items()]


def projected(settings: Settings, book: ProbeBook, deadline: float) -> list[Finding]:
    """The projector's positions at the end of every source partition and a row for every probe spin."""
    while True:
        problem = asyncio.run(_projection_problem(settings, book))
        if not problem or time.monotonic() > deadline:
            return [Finding("projector", "behind", problem)] if problem else []
        time.sleep(POLL_S)


async def _projection_problem(settings: Settings, book: ProbeBook) -> str:
    conn = await asyncpg.connect(settings.database_url, timeout=15)
    try:
        if not await conn.fetchval("SELECT to_regclass('projection.positions') IS NOT NULL"):
            return "no projection yet"
        rows = await conn.fetch("SELECT topic, partition, next_offset FROM projection.positions")
        spins = await conn.fetchval(
            "SELECT count(DISTINCT request_id) FROM projection.spins WHERE request_id = ANY($1::uuid[])",
            list(book.spin_requests),
        )
    finally:
        await conn.close()
    positions = {TopicPartition(row["topic"], row["partition"]): row["next_offset"] for row in rows}
    late = _records_behind(settings, positions)
    missing = len(book.spin_requests) - spins
    return "; ".join(filter(None, (late, f"{missing} probe spins not projected" if missing else "")))


def _records_behind(settings: Settings, positions: dict[TopicPartition, int]) -> str:
    reader = kafka_consumer(
        settings.kafka_bootstrap_servers, group_id=None, client_id="fuzz-probe", **{**CONSUMER_SAFETY}
    )
    try:
        partitions = [
            TopicPartition(settings.topic(name), p)
            for name in SOURCE_TOPICS
            for p in sorted(reader.partitions_for_topic(settings.topic(name)) or ())
        ]
        ends = reader.end_offsets(partitions)
        late = []
        for tp in partitions:
            try:
                lag, _ = committed_records_between(reader, tp, positions.get(tp, 0), ends[tp])
            except READ_ERRORS as error:
                lag = f"unreadable ({type(error).__name__})"
            if lag:
                late.append(f"{tp.topic.removeprefix(settings.topic_prefix)}[{tp.partition}] {lag}")
        return f"records left: {', '.join(late)}" if late else ""
    finally:
        reader.close(autocommit=False)


def counted(port: int, book: ProbeBook, deadline: float) -> list[Finding]:
    """The monitor counts exactly the settled probe spins (no more: an untrusted record counted; no fewer: behind)."""
    while True:
        body = get_json(port, "/api/ops")
        spins = {
            game: (body or {}).get("rtp_by_game", {}).get(game, {}).get("spins", 0) for game in book.settled_by_game
        }
        if body is not None and spins == dict(book.settled_by_game):
            return []
        if time.monotonic() > deadline:
            break
        time.sleep(POLL_S)
    if body is None:
        return [Finding("monitor", "no answer", "its /api/ops did not answer")]
    what = "miscounted" if any(spins[g] > n for g, n in book.settled_by_game.items()) else "behind"
    return [Finding("monitor", what, f"counts {spins} settled spins, the probes made {dict(book.settled_by_game)}")]


def dead_letters(settings: Settings, port: int) -> dict[str, dict[str, int]]:
    """Dead letters per dead-letter topic: the records on it (read_committed: transaction markers are not records)
    and what the monitor counts for ops (empty when it does not answer)."""
    reader = kafka_consumer(settings.kafka_bootstrap_servers, group_id=None, client_id="fuzz-probe", **CONSUMER_SAFETY)
    on_topics: Counter = Counter()
    try:
        for spec in DLQ_TOPICS:
            name = settings.topic(spec.name)
            partitions = [TopicPartition(name, p) for p in sorted(reader.partitions_for_topic(name) or ())]
            for tp, end in reader.end_offsets(partitions).items():
                on_topics[spec.name] += committed_records_between(reader, tp, 0, end)[0]
    finally:
        reader.close(autocommit=False)
    monitor: Counter = Counter()
    for row in (get_json(port, "/api/ops") or {}).get("dead_letters", ()):
        monitor[row["topic"].removeprefix(settings.topic_prefix)] += row["count"]
    return {"on_topics": dict(on_topics), "monitor": dict(monitor)}


class Audits:
    """The audit after each round, from the checkpoint the previous one left (the first reads everything)."""

    def __init__(self, settings: Settings, folder: Path) -> None:
        self.settings, self.folder = settings, folder
        self.resume = False
        self.quarantined: Counter = Counter()  # per topic, over the rounds

    def run(self, book: ProbeBook) -> list[Finding]:
        from services.audit.adapters.runner import Checkpointing, audit_platform
        from services.audit.core.scope import Scope

        checkpointing = Checkpointing(self.folder / "checkpoint.json", self.folder / "keys", resume=self.resume)
        try:
            run = audit_platform(self.settings, Scope(), with_projection=False, checkpointing=checkpointing)
        except Exception as error:  # noqa: BLE001 - whatever stops the audit is the finding
            return [Finding("audit", "failed", f"{type(error).__name__}: {error}"[:600])]
        self.resume = True
        self.quarantined += Counter(item.where.split("[")[0] for item in run.result.facts.quarantined)
        return judged(run, book)


def judged(run, book: ProbeBook) -> list[Finding]:
    """What an audit run shows beyond the probes: money discrepancies, balances, pool movements."""
    found = [
        Finding("money", "audit", f"{d.check}: {d.subject}: {d.detail} ({d.where or '-'})")
        for d in run.discrepancies
        if d.check != UNTRUSTED
    ]
    found += [Finding("money", "moved", line) for line in book.ledger_problems(run.result.ledger.balances_micro)]
    jackpot = [fact for fact in run.result.facts.facts if fact.topic == "jackpot.events"]
    return found + [Finding("money", "moved", line) for line in book.pool_problems(jackpot)]
