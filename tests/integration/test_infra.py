"""The local infrastructure really works: messages go through the broker, rows through PostgreSQL, topics as
declared."""

from __future__ import annotations

import uuid

import pytest
from kafka import OffsetAndMetadata

from shared.waits import wait_until
from shared.kafka import admin_client, describe, drift
from shared.topics import ALL_TOPICS

pytestmark = pytest.mark.integration


def _poll_values(consumer, count: int, timeout_s: float) -> list[bytes]:
    values: list[bytes] = []

    def received_all() -> bool:
        for records in consumer.poll(timeout_ms=200).values():
            values.extend(record.value for record in records)
        return len(values) >= count

    wait_until(received_all, timeout_s, interval_s=0, what=f"{count} records")
    return values


def _commit(consumer, offsets) -> None:
    """Commit, riding out a rebalance (a loaded machine can delay a heartbeat past the 6 s session): bounded."""
    from kafka.errors import CommitFailedError, RebalanceInProgressError

    def committed() -> bool:
        try:
            consumer.commit(offsets)
        except (RebalanceInProgressError, CommitFailedError):
            consumer.poll(timeout_ms=200)  # completes the rejoin; max_poll_records bounds what it fetches
            return False
        return True

    wait_until(committed, 20, interval_s=0, what="an offset commit")


def test_messages_produced_with_acks_all_are_consumed_in_order_per_key(
    fresh_topic, fresh_group, make_producer, make_consumer
):
    topic = fresh_topic(partitions=3)
    producer = make_producer()
    sent = [f"message-{index}".encode() for index in range(50)]
    for value in sent:
        producer.send(topic, key=b"player-1", value=value)
    producer.flush(timeout=10)

    consumer = make_consumer(topic, group_id=fresh_group())
    received = _poll_values(consumer, len(sent), timeout_s=20)

    assert received == sent


def test_a_new_group_member_resumes_after_the_committed_offset(fresh_topic, fresh_group, make_producer, make_consumer):
    topic, group = fresh_topic(), fresh_group()
    producer = make_producer()
    for index in range(10):
        producer.send(topic, value=str(index).encode())
    producer.flush(timeout=10)
    first = make_consumer(topic, group_id=group, max_poll_records=4)
    first_batch = _poll_values(first, 4, timeout_s=20)[:4]
    partition = next(iter(first.assignment()))
    _commit(first, {partition: OffsetAndMetadata(4, None, -1)})
    first.close(autocommit=False)

    second = make_consumer(topic, group_id=group)
    rest = _poll_values(second, 6, timeout_s=20)

    assert first_batch == [b"0", b"1", b"2", b"3"]
    assert rest == [str(index).encode() for index in range(4, 10)]


def test_fresh_topics_carry_the_requested_configs(fresh_topic, kafka_admin):
    topic = fresh_topic(partitions=2, configs={"cleanup.policy": "compact", "message.timestamp.type": "LogAppendTime"})

    [found] = describe(kafka_admin, [topic])

    assert found["partitions"] == 2
    assert found["configs"]["cleanup.policy"] == "compact"
    assert found["configs"]["message.timestamp.type"] == "LogAppendTime"


def test_every_declared_topic_exists_as_declared(contract_topics, kafka_bootstrap):
    admin = admin_client(kafka_bootstrap)
    try:
        found = {topic["name"]: topic for topic in describe(admin, list(contract_topics))}
    finally:
        admin.close()

    for spec in ALL_TOPICS:
        topic = found[spec.name]
        assert drift(spec, 1, topic["partitions"], topic["replicas"], topic["configs"]) == ()


def test_the_broker_refuses_to_auto_create_topics(kafka_bootstrap, make_producer):
    from kafka.errors import KafkaTimeoutError

    producer = make_producer(max_block_ms=2000)
    with pytest.raises(KafkaTimeoutError):
        producer.send(f"never-created-{uuid.uuid4().hex}", value=b"x").get(timeout=5)


async def test_rows_written_to_postgres_are_read_back(pg_schema):
    connection, schema = pg_schema
    await connection.execute("CREATE TABLE ledger (entry_id uuid PRIMARY KEY, amount_minor bigint NOT NULL)")
    entries = [(uuid.uuid4(), amount) for amount in (100, -40, 2_000_000_000_000)]

    await connection.executemany("INSERT INTO ledger (entry_id, amount_minor) VALUES ($1, $2)", entries)
    total = await connection.fetchval("SELECT sum(amount_minor) FROM ledger")
    table_schema = await connection.fetchval(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 'ledger'"
    )

    assert total == 2_000_000_000_060
    assert table_schema == schema


async def test_a_duplicate_primary_key_is_refused_by_postgres(pg_schema):
    import asyncpg

    connection, _ = pg_schema
    await connection.execute("CREATE TABLE seen (event_id uuid PRIMARY KEY)")
    event_id = uuid.uuid4()
    await connection.execute("INSERT INTO seen VALUES ($1)", event_id)

    with pytest.raises(asyncpg.UniqueViolationError):
        await connection.execute("INSERT INTO seen VALUES ($1)", event_id)


def test_ensure_topics_creates_under_a_prefix_then_reports_drift_without_altering(kafka_admin):
    from kafka.admin import NewPartitions

    from shared.kafka import ensure_topics
    from shared.topics import spec

    prefix = f"p{uuid.uuid4().hex[:12]}-"
    declared = [spec("wallet.events")]
    try:
        created = ensure_topics(kafka_admin, declared, replication_factor=1, prefix=prefix)
        kafka_admin.create_partitions({prefix + "wallet.events": NewPartitions(declared[0].partitions + 1)})
        grown = declared[0].partitions + 1
        wait_until(
            lambda: describe(kafka_admin, [prefix + "wallet.events"])[0]["partitions"] == grown,
            10,
            what="the new partition in the metadata",
        )
        checked = ensure_topics(kafka_admin, declared, replication_factor=1, prefix=prefix)
    finally:
        kafka_admin.delete_topics([prefix + "wallet.events"])

    assert [(report.name, report.action) for report in created] == [(prefix + "wallet.events", "created")]
    assert checked[0].action == "drift"
    assert checked[0].problems == (f"partitions {declared[0].partitions + 1} (declared {declared[0].partitions})",)


def test_infra_up_again_reuses_the_running_servers_and_rewrites_the_env_file(kafka_bootstrap, database_url):
    from deploy.local import infra, kafka, postgres
    from deploy.local.paths import default_paths

    paths = default_paths()
    if kafka.running_pid(paths) is None or postgres.running_pid(paths) is None:
        pytest.skip("the servers were not started by `reelstream infra up` of this checkout")
    pids_before = (kafka.running_pid(paths), postgres.running_pid(paths))
    lines: list[str] = []

    env = infra.up(paths, lines.append, secure=infra.running_secure(paths))

    assert (kafka.running_pid(paths), postgres.running_pid(paths)) == pids_before
    assert lines == [
        f"kafka: already running (pid {pids_before[0]})",
        f"postgres: already running (pid {pids_before[1]})",
    ]
    assert (env.kafka_bootstrap_servers, env.database_url) == (kafka_bootstrap, database_url)
    assert paths.env_file.read_text().splitlines() == env.lines()
    assert [row[2].startswith("up") for row in infra.status(paths)] == [True, True]


def test_a_fresh_prefix_holds_every_declared_topic(fresh_prefix, kafka_admin):
    names = set(kafka_admin.list_topics())

    assert {fresh_prefix + spec.name for spec in ALL_TOPICS} <= names


def test_a_topic_the_broker_cannot_create_raises_with_the_brokers_reason(kafka_admin):
    from shared.kafka import TopicError, ensure_topics
    from shared.topics import spec

    prefix = f"p{uuid.uuid4().hex[:12]}-"

    with pytest.raises(TopicError, match=f"cannot create topic {prefix}wallet.events: .*[Rr]eplication factor"):
        ensure_topics(kafka_admin, [spec("wallet.events")], replication_factor=3, prefix=prefix)
    assert prefix + "wallet.events" not in kafka_admin.list_topics()
