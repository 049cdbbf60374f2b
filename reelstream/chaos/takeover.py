"""Watched from outside after a fault: the takeover (the killed service's group commits again on every partition of
its inputs that holds a record past its committed position at the kill) and the recovery (a probe spin sent after
the fault to every player partition is answered). docs/chaos.md, "What a fault is measured by", defines both."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from dataclasses import dataclass, field

import asyncpg
from kafka import TopicPartition
from kafka.errors import KafkaError

from reelstream.client import ReelstreamClient, SpinTimeout
from services.projector.adapters.kafka_io import SOURCE_TOPICS
from services.spin.adapters.runner import INPUTS as SPIN_INPUTS, POSITIONS_ON as SPIN_POSITIONS_ON
from shared import records
from shared.config import Settings
from shared.input_position import recorded_inputs
from shared.kafka import CONSUMER_SAFETY, READER_SAFETY, admin_client, kafka_consumer
from shared.partitioning import partition_for
from shared.session import issue_token
from shared.topics import (
    JACKPOT_COMMANDS,
    JACKPOT_EVENTS,
    JACKPOT_INTERNAL,
    PLAYER_PARTITIONS,
    WALLET_COMMANDS,
    WALLET_EVENTS,
    WALLET_INTERNAL,
)

# The topics each service consumes (its runner's inputs); the projector commits its positions in PostgreSQL.
INPUTS = {
    "spin": SPIN_INPUTS,
    "wallet": (WALLET_COMMANDS, WALLET_INTERNAL),
    "jackpot": (JACKPOT_COMMANDS, JACKPOT_INTERNAL),
    "projector": SOURCE_TOPICS,
}
# Where each service's transactions carry their inputs' positions (LoopConfig.positions_on): the consumer group learns
# them only every few seconds (shared/input_position.py), so a takeover shows first on these records.
CARRIERS = {"spin": SPIN_POSITIONS_ON, "wallet": (WALLET_EVENTS,), "jackpot": (JACKPOT_EVENTS,)}
# How far back from a carrying partition's end its last position is looked for (a transaction's last record carries it).
CARRIED_LOOKBACK = 2_000
READ_MAX_S = 10.0  # the longest a read of the carrying records, or of which partitions had work, takes
WATCH_MAX_S = 60.0  # after the fault ended: a takeover or recovery not seen by then is none (the run fails)
POLL_S = 0.05  # the resolution of takeover_s
READ_POLL_MS = 20
PROBE_GAME, PROBE_CURRENCY, PROBE_STAKE_MINOR = "rising-joker", "EUR", 10
PROBE_DEPOSIT_MINOR = 10_000_000
PROBE_TIMEOUT_S = 10.0


def probe_players(partitions: int = PLAYER_PARTITIONS) -> tuple[str, ...]:
    """One player name per player partition (Kafka's murmur2 partitioner), in partition order."""
    by_partition: dict[int, str] = {}
    n = 0
    while len(by_partition) < partitions:
        name = f"chaos-probe-{n}"
        by_partition.setdefault(partition_for(name.encode(), partitions), name)
        n += 1
    return tuple(by_partition[p] for p in range(partitions))


@dataclass
class Measured:
    takeover_s: float | None = None
    takeover_partitions: int = 0  # partitions of the killed service's inputs that had a record to take over
    takeover_resolution_s: float | None = None  # the longest time between two looks: how late a commit can be seen
    recovery_s: float | None = None
    probe_request_ids: list[uuid.UUID] = field(default_factory=list)


def carried(logical_topic: str, record) -> dict[str, int]:
    """The input positions a record carries (logical topic -> next offset) when its topic's owner wrote it, else none:
    the carrying topics are among those the chaos run fuzzes, and a forged header must neither stop the watch nor move
    a position it measures."""
    if records.provenance_problem(logical_topic, record.headers, record.value, record.key) is not None:
        return {}
    try:
        return recorded_inputs(record.headers)
    except ValueError:  # the owner's key on a header it never writes so: nothing to measure by
        return {}


class Carried:
    """The input positions a service's committed transactions carry on their records (shared/input_position.py),
    followed from the tail of its carrying topics: a record on partition p names where p of each input stands."""

    def __init__(self, settings: Settings, service: str) -> None:
        self.settings = settings
        self.reader = kafka_consumer(
            settings.kafka_bootstrap_servers, group_id=None, client_id="chaos-takeover-carried", **CONSUMER_SAFETY
        )
        self.logical = {settings.topic(name): name for name in CARRIERS.get(service, ())}
        carriers = [
            TopicPartition(physical, p)
            for physical in self.logical
            for p in sorted(self.reader.partitions_for_topic(physical) or ())
        ]
        self.positions: dict[TopicPartition, int] = {}
        self.reader.assign(carriers)
        if carriers:
            ends = self.reader.end_offsets(carriers)
            for tp in carriers:
                self.reader.seek(tp, max(0, ends[tp] - CARRIED_LOOKBACK))

    def read_to_end(self) -> None:
        """Every committed record up to the partitions' ends now: the positions at this moment (the kill)."""
        carriers = list(self.reader.assignment())
        if not carriers:
            return
        ends, deadline = self.reader.end_offsets(carriers), time.monotonic() + READ_MAX_S
        while any(self.reader.position(tp) < ends[tp] for tp in carriers) and time.monotonic() < deadline:
            # A short poll: a fetch of markers only moves the position and hands over no record, and a long poll
            # would wait its whole timeout for one.
            self._fold(self.reader.poll(timeout_ms=READ_POLL_MS, max_records=5_000))

    def now(self) -> dict[TopicPartition, int]:
        """The positions the records read so far carry (physical input topic and partition -> next offset); each
        call folds what the broker has handed over since the last (the fetch runs behind the poll)."""
        self._fold(self.reader.poll(timeout_ms=0, max_records=5_000))
        return self.positions

    def _fold(self, polled: dict) -> None:
        for tp, batch in polled.items():
            for record in batch:
                for logical, offset in carried(self.logical[tp.topic], record).items():
                    key = TopicPartition(self.settings.topic(logical), tp.partition)
                    self.positions[key] = max(offset, self.positions.get(key, 0))

    def close(self) -> None:
        self.reader.close(autocommit=False)


class Committed:
    """A service's committed positions: its consumer group's offsets, or the projector's positions table, and the
    positions its transactions carry on their records (`Carried`), whichever is further."""

    def __init__(self, settings: Settings, service: str) -> None:
        self.settings, self.service = settings, service
        self.admin = admin_client(settings.kafka_bootstrap_servers, client_id="chaos-takeover")
        # A reader's short fetch wait: a range that ends in markers is read past them at once, not after a held fetch,
        # and the watch (which looks between its polls) stays at its resolution.
        self.reader = kafka_consumer(
            settings.kafka_bootstrap_servers, group_id=None, client_id="chaos-takeover", **READER_SAFETY
        )
        self.partitions = [
            TopicPartition(settings.topic(name), p)
            for name in INPUTS[service]
            for p in sorted(self.reader.partitions_for_topic(settings.topic(name)) or ())
        ]
        self.carried = Carried(settings, service)

    def before_kill(self) -> None:
        """Read the carrying records up to now (up to CARRIED_LOOKBACK a partition, each checked for its writer), so
        that the reading right after the kill is of the last moment's records only: it starts the watch, and every
        look is dated after it."""
        self.carried.read_to_end()

    def at_kill(self) -> dict[TopicPartition, int]:
        """The positions right after the kill: every carrying record up to the partitions' ends read first."""
        self.carried.read_to_end()
        return self.now()

    def now(self) -> dict[TopicPartition, int]:
        if self.service == "projector":
            rows = asyncio.run(_projector_positions(self.settings.database_url))
            found = {TopicPartition(topic, partition): offset for topic, partition, offset in rows}
        else:
            group = self.settings.group(self.service)
            committed = self.admin.list_group_offsets({group: None}).get(group, {})
            found = {tp: meta.offset for tp, meta in committed.items()}
        carried = self.carried.now()
        return {tp: max(found.get(tp, 0), carried.get(tp, 0), 0) for tp in self.partitions}

    def ends(self) -> dict[TopicPartition, int]:
        """The partitions' end offsets; none this time when the broker does not give them all (kafka-python raises
        a KeyError for a partition it got no offset for): the next poll asks again."""
        try:
            return self.reader.end_offsets(self.partitions)
        except (KafkaError, KeyError):
            return {}

    def with_records(self, ranges: dict[TopicPartition, tuple[int, int]]) -> set[TopicPartition]:
        """The partitions in which a read_committed reader finds a record from `start` up to `end` (markers are
        offsets, not records), read together and each only up to its first record."""
        pending = {tp: span for tp, span in ranges.items() if span[1] > span[0]}
        found: set[TopicPartition] = set()
        if not pending:
            return found
        self.reader.assign(list(pending))
        self.reader.resume(*pending)  # paused by an earlier read (an assignment keeps a partition's pause)
        for tp, (start, _) in pending.items():
            self.reader.seek(tp, start)
        deadline = time.monotonic() + READ_MAX_S
        while pending and time.monotonic() < deadline:
            for tp, batch in self.reader.poll(timeout_ms=READ_POLL_MS, max_records=5_000).items():
                if tp in pending and any(record.offset < pending[tp][1] for record in batch):
                    found.add(tp)
            for tp in [tp for tp in pending if tp in found or self.reader.position(tp) >= pending[tp][1]]:
                del pending[tp]
                self.reader.pause(tp)
        return found

    def close(self) -> None:
        self.admin.close()
        self.reader.close(autocommit=False)
        self.carried.close()


async def _projector_positions(url: str) -> list[tuple[str, int, int]]:
    conn = await asyncpg.connect(url, timeout=10)
    try:
        if not await conn.fetchval("SELECT to_regclass('projection.positions') IS NOT NULL"):
            return []
        rows = await conn.fetch("SELECT topic, partition, next_offset FROM projection.positions")
    finally:
        await conn.close()
    return [(row["topic"], row["partition"], row["next_offset"]) for row in rows]


class Prober:
    """Probe spins, one per player partition, from a client of their own (its players deposited once)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.players = probe_players()
        self.client = ReelstreamClient(settings.kafka_bootstrap_servers, settings.topic_prefix, client_id="chaos-probe")
        for player in self.players:
            self.client.deposit(player, PROBE_DEPOSIT_MINOR, PROBE_CURRENCY, timeout_s=60)

    def spin_all(self, measured: Measured, answered_at: list[float], deadline: float) -> list[threading.Thread]:
        threads = []
        for player in self.players:
            request_id = uuid.uuid4()
            measured.probe_request_ids.append(request_id)
            thread = threading.Thread(
                target=self._spin, args=(player, request_id, answered_at, deadline), name="chaos-probe", daemon=True
            )
            thread.start()
            threads.append(thread)
        return threads

    def _spin(self, player: str, request_id: uuid.UUID, answered_at: list[float], deadline: float) -> None:
        token = issue_token(self.settings.session_secret, player, int(time.time() * 1000) + 3_600_000)
        while time.monotonic() < deadline:
            try:
                self.client.spin(
                    player,
                    PROBE_GAME,
                    PROBE_STAKE_MINOR,
                    PROBE_CURRENCY,
                    token,
                    request_id=request_id,
                    timeout_s=PROBE_TIMEOUT_S,
                )
            except SpinTimeout:
                continue
            except KafkaError:
                time.sleep(0.5)  # the broker restarting under the probe
                continue
            answered_at.append(time.monotonic())
            return

    def close(self) -> None:
        self.client.close()


def measure(prober: Prober, fault_at: float, committed: Committed | None = None) -> Measured:
    """Right after a fault (`fault_at`, monotonic): probes to every player partition, and for a kill the killed
    service's committed positions (read first: `committed` was connected before the kill) watched until each
    partition with a record past its position at the kill was committed past it."""
    measured, answered_at = Measured(), []
    deadline = time.monotonic() + WATCH_MAX_S  # from the fault's end: a broker restart itself can take a minute
    at_kill = committed.at_kill() if committed is not None else {}
    probes = prober.spin_all(measured, answered_at, deadline)
    if committed is not None:
        watched = _watch(committed, at_kill, fault_at, deadline, probes)
        measured.takeover_s, measured.takeover_partitions, measured.takeover_resolution_s = watched
    for probe in probes:
        probe.join(max(0.0, deadline - time.monotonic()))
    if len(answered_at) == len(prober.players):
        measured.recovery_s = round(max(answered_at) - fault_at, 3)
    return measured


def _watch(
    committed: Committed,
    at_kill: dict[TopicPartition, int],
    fault_at: float,
    deadline: float,
    probes: list[threading.Thread],
) -> tuple[float | None, int, float]:
    """(takeover_s, partitions with work, resolution): polled until every partition holding a record past its position
    at the kill was committed past it, looked at again once the probes are answered (their records reach every
    input); the resolution is the longest time between two looks (a commit is dated at the look after it)."""
    moved_at: dict[TopicPartition, float] = {}
    looks: list[float] = [fault_at]
    with_work: set[TopicPartition] = set()
    looked_to: dict[TopicPartition, int] = dict(at_kill)  # how far each partition was searched for a record
    final_look = False
    while time.monotonic() < deadline:
        positions = committed.now()
        now = time.monotonic()  # after the read: a commit it shows happened before (an upper bound)
        looks.append(now)
        for tp, position in positions.items():
            if tp not in moved_at and position > at_kill[tp]:
                moved_at[tp] = now
                with_work.add(tp)  # it committed past the kill: there was a record to take over
        unsearched = {tp: end for tp, end in committed.ends().items() if tp not in with_work and end > looked_to[tp]}
        with_work |= committed.with_records({tp: (at_kill[tp], end) for tp, end in unsearched.items()})
        looked_to.update(unsearched)
        if not with_work - set(moved_at):
            if final_look:
                break
            final_look = not any(probe.is_alive() for probe in probes)
        time.sleep(POLL_S)
    resolution = round(max(later - earlier for earlier, later in zip(looks, looks[1:])), 3) if len(looks) > 1 else 0.0
    if with_work - set(moved_at) or not with_work:
        return None, len(with_work), resolution
    return round(max(moved_at[tp] for tp in with_work) - fault_at, 3), len(with_work), resolution
