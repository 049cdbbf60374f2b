"""Real Kafka and PostgreSQL for integration tests: from the environment (`reelstream infra up`), else testcontainers
when a Docker engine answers, else skip with a clear message; under CI=true a missing server FAILS instead.

Each test gets fresh uuid-named topics and groups, and consumers with short sessions so a dead one never stalls a test.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator

import pytest

from shared.waits import WaitTimeout, wait_until
from shared.acls import grant_prefix, revoke_prefix
from shared.kafka import admin_client, consumer, ensure_topics, producer
from shared.topic_admin import topics_under
from shared.topics import ALL_TOPICS

# A consumer killed mid-test is evicted from its group after 6 s, not after the 45 s default.
TEST_CONSUMER_OPTIONS = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000, "max_poll_interval_ms": 30_000}
_CONNECT_TIMEOUT_S = 15
_KAFKA_IMAGE = "confluentinc/cp-kafka:7.9.0"  # Kafka 3.9; the image testcontainers' KafkaContainer knows how to start
_POSTGRES_IMAGE = "postgres:15"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def unavailable(message: str):
    """Skip locally, fail under CI: CI must never pass by skipping the tests that matter."""
    hint = " Start them with `make infra-up` (or `reelstream infra up`) and export .reelstream/env."
    if in_ci():
        pytest.fail(f"CI=true but {message}.{hint}", pytrace=False)
    pytest.skip(f"{message}.{hint}")


def _docker_answers() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=3)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - any failure means "no usable Docker engine"
        return False


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """bootstrap.servers of a real broker answering metadata requests."""
    from deploy.local.kafka import broker_answers

    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if bootstrap:
        try:
            wait_until(lambda: broker_answers(bootstrap), _CONNECT_TIMEOUT_S, 0.5, what=f"kafka on {bootstrap}")
        except WaitTimeout:
            unavailable(f"KAFKA_BOOTSTRAP_SERVERS={bootstrap} but no broker answers there")
        yield bootstrap
        return
    if not _docker_answers():
        unavailable("no Kafka: KAFKA_BOOTSTRAP_SERVERS is not set and no Docker engine answers")
    from testcontainers.community.kafka import KafkaContainer

    with KafkaContainer(_KAFKA_IMAGE).with_kraft() as container:
        yield container.get_bootstrap_server()


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """A postgresql:// URL of a real server accepting connections."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    if not _docker_answers():
        unavailable("no PostgreSQL: DATABASE_URL is not set and no Docker engine answers")
    from testcontainers.community.postgres import PostgresContainer

    with PostgresContainer(_POSTGRES_IMAGE, driver=None) as container:
        yield container.get_connection_url()


@pytest.fixture(scope="session", autouse=True)
def every_writers_key(tmp_path_factory) -> Iterator[None]:
    """A key for every writer in the environment's signing folder: one made before a writer existed (an earlier
    `reelstream infra up`) is copied and completed here, for this process and the services it starts, and the shared
    folder is left as it is (`reelstream signing generate` completes it for good)."""
    from shared import signing

    folder = signing.signing_dir()
    completed = None if folder is None else tmp_path_factory.mktemp("signing") / "keys"
    if folder is None or not folder.is_dir() or not signing.generate(shutil.copytree(folder, completed)):
        yield
        return
    patch = pytest.MonkeyPatch()
    patch.setenv(signing.SIGNING_DIR_ENV, str(completed))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def kafka_admin(kafka_bootstrap: str):
    admin = admin_client(kafka_bootstrap, client_id="reelstream-tests")
    yield admin
    admin.close()


@pytest.fixture(scope="session")
def contract_topics(kafka_admin) -> tuple[str, ...]:
    """Every topic of shared/topics.py exists with its declared partitions (created when missing)."""
    ensure_topics(kafka_admin, ALL_TOPICS, replication_factor=1)
    return tuple(spec.name for spec in ALL_TOPICS)


@pytest.fixture
def fresh_topic(kafka_admin):
    """`fresh_topic(partitions=1, configs=None, prefix="t")` creates a uuid-named topic, deleted after the test."""
    from kafka.admin import NewTopic

    created: list[str] = []

    def make(partitions: int = 1, configs: dict[str, str] | None = None, prefix: str = "t") -> str:
        name = f"{prefix}-{uuid.uuid4().hex}"
        kafka_admin.create_topics([NewTopic(name, partitions, 1, topic_configs=configs or {})], raise_errors=True)
        created.append(name)
        wait_until(lambda: _has_leaders(kafka_admin, name, partitions), 10, 0.05, what=f"leaders of {name}")
        return name

    yield make
    if created:
        kafka_admin.delete_topics(created)


@pytest.fixture
def fresh_prefix(kafka_admin):
    """A uuid topic prefix (for REELSTREAM_TOPIC_PREFIX) with every declared topic created under it. After the test
    every topic that starts with it is deleted, the ones faust created (changelogs, repartitions) included."""
    prefix = f"t{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_admin, ALL_TOPICS, replication_factor=1, prefix=prefix)
    grant_prefix(kafka_admin, prefix)  # on a secured broker: every role's ACLs under the prefix, visible
    yield prefix
    doomed = topics_under(kafka_admin, prefix)
    if doomed:
        kafka_admin.delete_topics(doomed)
    revoke_prefix(kafka_admin, prefix)


def _has_leaders(admin, name: str, partitions: int) -> bool:
    topics = admin.describe_topics([name])
    found = [p for t in topics for p in t["partitions"] if t["error_code"] == 0 and p["leader_id"] >= 0]
    return len(found) == partitions


@pytest.fixture
def fresh_group():
    """`fresh_group(prefix="g")`: a uuid consumer group name, so no test inherits committed offsets."""
    return lambda prefix="g": f"{prefix}-{uuid.uuid4().hex}"


@pytest.fixture
def make_consumer(kafka_bootstrap: str):
    """kafka-python consumers with the project's safety options and short test sessions; closed after the test."""
    made = []

    def make(*topics: str, group_id: str | None, **overrides):
        instance = consumer(kafka_bootstrap, *topics, group_id=group_id, **{**TEST_CONSUMER_OPTIONS, **overrides})
        made.append(instance)
        return instance

    yield make
    for instance in made:
        instance.close(autocommit=False)


@pytest.fixture
def make_producer(kafka_bootstrap: str):
    """kafka-python producers with acks=all and idempotence; flushed and closed after the test."""
    made = []

    def make(**overrides):
        instance = producer(kafka_bootstrap, client_id="reelstream-tests", **overrides)
        made.append(instance)
        return instance

    yield make
    for instance in made:
        instance.close(timeout=10)


@pytest.fixture
async def pg_schema(database_url: str):
    """(connection, schema): an asyncpg connection whose search_path is a fresh schema, dropped after the test."""
    import asyncpg

    schema = f"t_{uuid.uuid4().hex}"
    connection = await asyncpg.connect(database_url, timeout=_CONNECT_TIMEOUT_S)
    await connection.execute(f'CREATE SCHEMA "{schema}"')
    await connection.execute(f'SET search_path TO "{schema}"')
    yield connection, schema
    await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
    await connection.close()
