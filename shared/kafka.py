"""Kafka client factories with the safety options spelled out (acks=all + idempotence; no auto-commit, read_committed,
an explicit reset policy), and topics-as-code reconciliation (kafka-python)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from shared import record_batches
from shared.roles import ends_with_commit_marker
from shared.security import ClientSecurity, note_client, security_for
from shared.topics import TopicSpec, with_min_insync
from shared.waits import WaitTimeout, wait_until

# Every consumer is built here, so the tolerant record path is in both libraries before any of them fetches.
record_batches.install()

PRODUCER_SAFETY: dict[str, Any] = {
    "acks": "all",
    "enable_idempotence": True,
    "max_in_flight_requests_per_connection": 5,  # the idempotent producer keeps order with up to 5 in flight
    "delivery_timeout_ms": 120_000,
    "linger_ms": 5,
}
CONSUMER_SAFETY: dict[str, Any] = {
    "enable_auto_commit": False,
    "isolation_level": "read_committed",
    "auto_offset_reset": "earliest",
}
# aiokafka spells the same options the same way, minus the ones it does not have.
AIOKAFKA_PRODUCER_SAFETY: dict[str, Any] = {"acks": "all", "enable_idempotence": True, "linger_ms": 5}
AIOKAFKA_CONSUMER_SAFETY: dict[str, Any] = dict(CONSUMER_SAFETY)
# A reader that reads partitions to a known end (restores, snapshot reads, the chaos run's takeover watch): the broker
# holds a fetch for fetch_max_wait_ms once the reader is at the end or past it only by markers, and aiokafka's stop()
# waits for that fetch: a short wait keeps a restore of empty topics short and a read past markers quick. kafka-python
# and aiokafka spell it the same way.
READER_SAFETY: dict[str, Any] = {**CONSUMER_SAFETY, "fetch_max_wait_ms": 10}
AIOKAFKA_READER_SAFETY: dict[str, Any] = dict(READER_SAFETY)


def service_fetch_options(environ: Mapping[str, str] | None = None) -> dict[str, int]:
    """How the services' aiokafka consumers fetch when records are not flowing (the wallet, jackpot and spin loops).

    aiokafka sends no new fetch to a broker while one is in flight there, and the broker holds a fetch up to
    fetch_max_wait_ms when the partitions in it have nothing new: partitions just drained wait behind it. aiokafka's
    default wait is paid on every hop of a spin; a shorter one costs idle CPU, the shorter the more (docs/cost.md,
    "The idle platform", weighs the two). While records flow, `FetchPacing` switches to `busy_fetch_options`, and
    once none have come for a while to `quiet_fetch_options`. Overrides:
    REELSTREAM_FETCH_MAX_WAIT_MS, REELSTREAM_FETCH_MIN_BYTES.
    """
    import os

    env = os.environ if environ is None else environ
    return {
        "fetch_max_wait_ms": int(env.get("REELSTREAM_FETCH_MAX_WAIT_MS", "25")),
        "fetch_min_bytes": int(env.get("REELSTREAM_FETCH_MIN_BYTES", "1")),
    }


def busy_fetch_options(environ: Mapping[str, str] | None = None) -> dict[str, int]:
    """How they fetch while records flow: the broker gathers up to the wait (or the minimum bytes) into one fetch, so
    each loop iteration, transaction and produce carries more records, which shortens the latency under load
    (docs/spin.md).
    Overrides: REELSTREAM_FETCH_BUSY_MAX_WAIT_MS, REELSTREAM_FETCH_BUSY_MIN_BYTES.
    """
    import os

    env = os.environ if environ is None else environ
    return {
        "fetch_max_wait_ms": int(env.get("REELSTREAM_FETCH_BUSY_MAX_WAIT_MS", "10")),
        "fetch_min_bytes": int(env.get("REELSTREAM_FETCH_BUSY_MIN_BYTES", str(64 * 1024))),
    }


def quiet_fetch_options(environ: Mapping[str, str] | None = None) -> dict[str, int]:
    """How they fetch once no record has come for `quiet_after_ms`: the broker holds each fetch up to the long wait
    and returns it when one record arrives, so an idle service sends a fetch every half second, not forty a second
    (docs/cost.md, "The idle platform"). Overrides: REELSTREAM_FETCH_QUIET_MAX_WAIT_MS,
    REELSTREAM_FETCH_QUIET_AFTER_MS (0 never turns quiet).
    """
    import os

    env = os.environ if environ is None else environ
    return {
        "fetch_max_wait_ms": int(env.get("REELSTREAM_FETCH_QUIET_MAX_WAIT_MS", "500")),
        "fetch_min_bytes": 1,
        "quiet_after_ms": int(env.get("REELSTREAM_FETCH_QUIET_AFTER_MS", "1000")),
    }


class FetchPacing:
    """Coalesce fetches while records flow, answer at once when they start again, and wait long when none come.

    After a poll that returned records the consumer's next fetches use the busy options (held by the broker for the
    wait unless the minimum bytes gather); after an empty poll, the idle ones (returned as soon as one record
    arrives); after empty polls for `quiet_after_ms`, the quiet ones: the same single record ends the fetch, which
    then holds every partition (none has records waiting to be read), so a long wait costs the first record nothing.
    aiokafka builds each fetch request from its fetcher's `_fetch_max_wait_ms` / `_fetch_min_bytes`, which only its
    constructor sets: this pokes them (aiokafka is pinned; tests/unit/shared/test_kafka.py fails if they move).
    """

    def __init__(self, idle: dict[str, int], busy: dict[str, int], quiet: dict[str, int] | None = None) -> None:
        self.idle, self.busy, self.quiet = idle, busy, quiet
        self.mode: str | None = None
        self._records_at: float | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, coalesce: bool = True) -> "FetchPacing":
        """`coalesce` False: records that flow are fetched as an idle consumer fetches them, each as it lands."""
        idle = service_fetch_options(environ)
        return cls(idle, busy_fetch_options(environ) if coalesce else idle, quiet_fetch_options(environ))

    def after_poll(self, consumer: Any, polled: bool, now: float | None = None) -> None:
        """After each poll: `polled` whether it returned records, `now` a monotonic clock in seconds."""
        now = time.monotonic() if now is None else now
        if polled or self._records_at is None:
            self._records_at = now
        mode = "busy" if polled else "quiet" if self._quiet_since(now) else "idle"
        if mode == self.mode:
            return
        options = {"busy": self.busy, "idle": self.idle, "quiet": self.quiet}[mode]
        fetcher = consumer._fetcher  # noqa: SLF001 - see the class docstring
        fetcher._fetch_max_wait_ms = options["fetch_max_wait_ms"]  # noqa: SLF001
        fetcher._fetch_min_bytes = options["fetch_min_bytes"]  # noqa: SLF001
        self.mode = mode

    def _quiet_since(self, now: float) -> bool:
        if not self.quiet or self.quiet["quiet_after_ms"] <= 0:
            return False
        return (now - self._records_at) * 1000 >= self.quiet["quiet_after_ms"]


_TOPIC_ALREADY_EXISTS = 36  # Kafka protocol error code TOPIC_ALREADY_EXISTS


def _python_security(bootstrap: str, role: str | None) -> dict[str, Any]:
    return note_client(bootstrap, security_for(role)).kafka_python()


def _aio_security(bootstrap: str, role: str | None) -> dict[str, Any]:
    return note_client(bootstrap, security_for(role)).aiokafka()


def admin_client(
    bootstrap: str,
    client_id: str = "reelstream-admin",
    *,
    role: str | None = None,
    security: ClientSecurity | None = None,
    **overrides: Any,
):
    """A kafka-python admin client; `role` picks its principal's connection settings (shared.security), unless
    `security` gives them outright."""
    from kafka import KafkaAdminClient

    chosen = note_client(bootstrap, security or security_for(role))
    return KafkaAdminClient(
        bootstrap_servers=bootstrap,
        client_id=client_id,
        request_timeout_ms=30_000,
        **{**chosen.kafka_python(), **overrides},
    )


def producer(bootstrap: str, client_id: str = "reelstream", *, role: str | None = None, **overrides: Any):
    from kafka import KafkaProducer

    return KafkaProducer(
        bootstrap_servers=bootstrap,
        client_id=client_id,
        **{**PRODUCER_SAFETY, **_python_security(bootstrap, role), **overrides},
    )


def aio_producer(bootstrap: str, *, role: str | None = None, **options: Any):
    """An aiokafka producer connected as `role`; the caller spells out its safety options (AIOKAFKA_PRODUCER_SAFETY)."""
    from aiokafka import AIOKafkaProducer

    return AIOKafkaProducer(bootstrap_servers=bootstrap, **{**_aio_security(bootstrap, role), **options})


# How soon a starting transactional producer asks again for its id while the coordinator aborts its predecessor's open
# transaction (CONCURRENT_TRANSACTIONS, answered until the abort's markers are written): aiokafka waits its whole
# retry backoff (retry_backoff_ms) for that as for any error, and a takeover waits for its slowest partition.
FENCE_RETRY_MS = 20


async def start_fencing(producer: Any) -> None:
    """`producer.start()` (InitProducerId: fences the transactional id's previous owner), asking again every
    FENCE_RETRY_MS while that owner's transaction is being aborted; the producer's own retry backoff is kept for
    everything after (a broker that is away is not asked fifty times a second)."""
    sender = producer._sender  # noqa: SLF001 - aiokafka is pinned; tests/unit/shared/test_kafka.py fails if it moves
    kept = sender._retry_backoff  # noqa: SLF001
    sender._retry_backoff = FENCE_RETRY_MS / 1000  # noqa: SLF001
    try:
        await producer.start()
    finally:
        sender._retry_backoff = kept  # noqa: SLF001


def platform_topics_compressed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the services' loops write zstd to the topics only the platform reads (`compressed_by_producers`);
    REELSTREAM_PLATFORM_COMPRESSION=none writes every batch uncompressed (docs/configuration.md)."""
    import os

    env = os.environ if environ is None else environ
    chosen = env.get("REELSTREAM_PLATFORM_COMPRESSION", "zstd")
    assert chosen in ("zstd", "none"), f"REELSTREAM_PLATFORM_COMPRESSION is zstd or none, not {chosen!r}"
    return chosen == "zstd"


def compress_by_topic(producer: Any, compressed: Callable[[str], bool]) -> None:
    """Write zstd batches to the topics `compressed` names, uncompressed ones to the others, from one producer.

    aiokafka gives every batch of a producer one codec, and a transactional producer writes the topics clients read
    and the platform's own in one transaction. The accumulator builds each partition's next batch empty and appends it
    at once: this rebuilds an empty one with zstd when its topic is compressed (aiokafka is pinned;
    tests/unit/shared/test_kafka.py fails if its accumulator moves).
    """
    from aiokafka.codec import has_zstd
    from aiokafka.record.default_records import DefaultRecordBatch

    assert has_zstd(), "aiokafka writes zstd through cramjam, a pinned dependency"
    accumulator = producer._message_accumulator  # noqa: SLF001 - see the docstring
    assert accumulator._compression_type == 0, "the producer itself compresses nothing"  # noqa: SLF001
    append_batch = accumulator._append_batch  # noqa: SLF001
    by_topic: dict[str, bool] = {}

    def append_compressed(builder: Any, tp: Any) -> Any:
        if tp.topic not in by_topic:
            by_topic[tp.topic] = compressed(tp.topic)
        if by_topic[tp.topic] and builder._relative_offset == 0:  # noqa: SLF001 - empty: nothing appended yet
            accumulator._compression_type = DefaultRecordBatch.CODEC_ZSTD  # noqa: SLF001
            try:
                builder = accumulator.create_builder()
            finally:
                accumulator._compression_type = 0  # noqa: SLF001
        return append_batch(builder, tp)

    accumulator._append_batch = append_compressed  # noqa: SLF001


def aio_consumer(*topics: str, bootstrap: str, role: str | None = None, **options: Any):
    """An aiokafka consumer connected as `role`; the caller spells out its safety options (AIOKAFKA_CONSUMER_SAFETY)."""
    from aiokafka import AIOKafkaConsumer

    return AIOKafkaConsumer(*topics, bootstrap_servers=bootstrap, **{**_aio_security(bootstrap, role), **options})


def records_behind(end: int, committed: int, ends_with_marker: bool) -> int:
    """Records between a committed offset and a partition's end. A consumer commits the offset after the last record
    it processed; where every write ends with a commit marker, a caught-up consumer's offset is that marker's, one
    before the end, and the marker is no record to read."""
    return max(0, end - committed - (1 if ends_with_marker else 0))


def group_lag(admin, reader, group: str, prefix: str | None = None) -> int | None:
    """Records behind the group's committed offsets, summed over what it committed (None: it committed nothing);
    `admin` a kafka-python admin client, `reader` a kafka-python consumer (for the end offsets). Given the deployment's
    topic `prefix`, a topic written only in transactions does not count its final commit marker as a record."""
    committed = admin.list_group_offsets({group: None}).get(group, {})
    if not committed:
        return None
    ends = reader.end_offsets(list(committed))
    return sum(
        records_behind(ends[tp], meta.offset, _ends_with_marker(tp.topic, prefix))
        for tp, meta in committed.items()
        if meta.offset >= 0
    )


def _ends_with_marker(topic: str, prefix: str | None) -> bool:
    return prefix is not None and topic.startswith(prefix) and ends_with_commit_marker(topic[len(prefix) :])


def kafka_consumer(bootstrap: str, *, role: str | None = None, **options: Any):
    """A bare kafka-python consumer connected as `role` (assigned by hand; the caller passes its options)."""
    from kafka import KafkaConsumer

    return KafkaConsumer(bootstrap_servers=bootstrap, **{**_python_security(bootstrap, role), **options})


def consumer(
    bootstrap: str,
    *topics: str,
    group_id: str | None,
    metadata_timeout_s: float = 15,
    role: str | None = None,
    **overrides: Any,
):
    """A kafka-python consumer, subscribed to `topics` only once their partitions are in its metadata.

    Subscribing first races the group join against the first metadata response: under load the assignor can find no
    partitions, assign nothing, and the consumer then idles until the next metadata refresh (5 minutes by default).
    """
    from kafka import KafkaConsumer

    client = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group_id,
        **{**CONSUMER_SAFETY, **_python_security(bootstrap, role), **overrides},
    )
    if topics:
        deadline = time.monotonic() + metadata_timeout_s
        missing = [topic for topic in topics if not client.partitions_for_topic(topic)]
        while missing and time.monotonic() < deadline:
            time.sleep(0.1)  # bounded by the deadline; partitions_for_topic itself asks the broker again
            missing = [topic for topic in missing if not client.partitions_for_topic(topic)]
        if missing:
            client.close(autocommit=False)
            raise LookupError(f"no partitions for {missing} after {metadata_timeout_s} s (topics are created as code)")
        client.subscribe(list(topics))
    return client


class TopicError(RuntimeError):
    """The broker refused to create a declared topic (the message is the broker's reason)."""


@dataclass(frozen=True)
class TopicReport:
    name: str
    action: str  # "created" | "ok" | "drift"
    problems: tuple[str, ...] = field(default_factory=tuple)


def expected_configs(spec: TopicSpec, replication_factor: int) -> dict[str, str]:
    return with_min_insync(dict(spec.configs), replication_factor)


def drift(
    spec: TopicSpec, replication_factor: int, partitions: int, replicas: int, configs: Mapping[str, str]
) -> tuple[str, ...]:
    """What differs between a topic as declared and as found on the broker (pure; empty when it matches)."""
    problems = []
    if partitions != spec.partitions:
        problems.append(f"partitions {partitions} (declared {spec.partitions})")
    if replicas != replication_factor:
        problems.append(f"replication factor {replicas} (declared {replication_factor})")
    for key, wanted in sorted(expected_configs(spec, replication_factor).items()):
        found = configs.get(key)
        if found != wanted:
            problems.append(f"{key}={found} (declared {wanted})")
    return tuple(problems)


def ensure_topics(admin, specs: Iterable[TopicSpec], replication_factor: int, prefix: str = "") -> list[TopicReport]:
    """Create the missing topics with explicit partitions and configs; report drift on existing ones (never alter).

    `prefix` puts every name under a deployment prefix (isolated test deployments). A topic a concurrent caller created
    first counts as existing and is checked for drift like any other.
    """
    from kafka.admin import NewTopic

    named = {prefix + spec.name: spec for spec in specs}
    existing = set(admin.list_topics())
    missing = [name for name in named if name not in existing]
    created: list[str] = []
    if missing:
        new_topics = [
            NewTopic(
                name,
                named[name].partitions,
                replication_factor,
                topic_configs=expected_configs(named[name], replication_factor),
            )
            for name in missing
        ]
        response = admin.create_topics(new_topics, raise_errors=False)
        for result in response["topics"]:
            if result["error_code"] == 0:
                created.append(result["name"])
            elif result["error_code"] != _TOPIC_ALREADY_EXISTS:
                raise TopicError(f"cannot create topic {result['name']}: {result['error_message']}")
    reports = [TopicReport(name, "created") for name in created]
    present = [name for name in named if name not in created]
    for name, found in zip(present, describe(admin, present)):
        problems = drift(named[name], replication_factor, found["partitions"], found["replicas"], found["configs"])
        reports.append(TopicReport(name, "drift" if problems else "ok", problems))
    return reports


# How long a topic just created may stay unknown to the broker an admin request reaches: in a cluster the controller
# acknowledges a creation before every broker has applied it, and a describe answered meanwhile is empty, not wrong.
SETTLE_S = 30.0


def describe(admin, names: list[str], settle_s: float = SETTLE_S) -> list[dict[str, Any]]:
    """Partitions, replication factor and every effective config of each named topic, in the given order. A topic the
    answering broker does not know yet (no partitions, no configs) is asked for again for up to `settle_s` seconds;
    after that it is reported as found (0 partitions), which the drift check names."""
    if not names:
        return []
    found: list[dict[str, Any]] = []

    def known_everywhere() -> bool:
        found[:] = _describe_once(admin, names)
        return all(topic["partitions"] and topic["configs"] for topic in found)

    try:
        wait_until(known_everywhere, settle_s, interval_s=0.2, what=f"{len(names)} topics described")
    except WaitTimeout:
        pass  # the last description stands: its empty topics are drift the caller names
    return found


def _describe_once(admin, names: list[str]) -> list[dict[str, Any]]:
    from kafka.admin import ConfigResource, ConfigResourceType

    metadata = {topic["name"]: topic for topic in admin.describe_topics(names)}
    resources = [ConfigResource(ConfigResourceType.TOPIC, name) for name in names]
    configs = admin.describe_configs(resources, config_filter="all")["topic"]
    result = []
    for name in names:
        partitions = metadata[name]["partitions"] if metadata[name]["error_code"] == 0 else []
        result.append(
            {
                "name": name,
                "partitions": len(partitions),
                "replicas": min((len(p["replica_nodes"]) for p in partitions), default=0),
                "configs": {key: entry["value"] for key, entry in configs.get(name, {}).items()},
            }
        )
    return result


SESSION_TIMEOUT_ENV = "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS"
INSTANCE_ID_ENV = "REELSTREAM_INSTANCE_ID"
# How long a silent member keeps its partitions by default, and the most a deployment may set (deploy/k8s/checks.py):
# the failure detector's part of the recovery time docs/operations.md states.
SESSION_TIMEOUT_MS = 10_000


def configured_session_ms(environ: Mapping[str, str] | None = None) -> int:
    """The group session timeout the environment sets (SESSION_TIMEOUT_ENV), else SESSION_TIMEOUT_MS."""
    import os

    env = os.environ if environ is None else environ
    return int(env.get(SESSION_TIMEOUT_ENV, str(SESSION_TIMEOUT_MS)))


def group_membership(environ: Mapping[str, str] | None = None, session_timeout_ms: int | None = None) -> dict[str, Any]:
    """How the services' consumers take part in their groups: one place for the wallet, jackpot and spin loops.

    REELSTREAM_KAFKA_SESSION_TIMEOUT_MS (default SESSION_TIMEOUT_MS): how long a silent member keeps its partitions.
    REELSTREAM_INSTANCE_ID (unset by default): static membership (KIP-345), e.g. a StatefulSet pod name; a member that
    restarts with the same id inside the session timeout gets its partitions back without a rebalance (aiokafka sends
    no LeaveGroup for a static member, so a stopped one holds them until the timeout). Two live processes must never
    share an id: the second fences the first.
    """
    import os

    env = os.environ if environ is None else environ
    session_ms = session_timeout_ms or configured_session_ms(env)
    options: dict[str, Any] = {
        "session_timeout_ms": session_ms,
        "heartbeat_interval_ms": max(500, session_ms // 5),
        "max_poll_interval_ms": 300_000,
        "rebalance_timeout_ms": 30_000,
    }
    instance = env.get(INSTANCE_ID_ENV, "").strip()
    if instance:
        options["group_instance_id"] = instance
    return options
