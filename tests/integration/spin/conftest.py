"""A whole platform (wallet, jackpot, spin) on fresh uuid-prefixed topics, plus readers of what it wrote."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from reelstream.client import ReelstreamClient
from reelstream.processes import ServiceProcess, spawn, stop_all
from shared.config import load_settings
from shared.events import decode_all
from shared.session import issue_token
from shared.topic_admin import delete_topics, ensure_topics
from shared.kafka import admin_client
from ops.topic_records import records_to_end

# The services under test sign and check tokens with the session key ring of the environment (tests/conftest.py).
SESSION_KEYS = load_settings().session_secret
SERVICE_ENV = {
    "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
    "REELSTREAM_SESSION_KEYS": SESSION_KEYS,
    "REELSTREAM_LOG_LEVEL": "WARNING",
}


@dataclass
class Platform:
    bootstrap: str
    prefix: str
    log_dir: Path
    env: dict[str, str]
    services: dict[str, ServiceProcess] = field(default_factory=dict)
    # Per-service environment kept across restarts (e.g. the spin service's armed test seeds).
    service_env: dict[str, dict[str, str]] = field(default_factory=dict)

    def start(self, name: str, **extra_env: str) -> ServiceProcess:
        env = {**self.env, **self.service_env.get(name, {}), **extra_env}
        self.services[name] = spawn(name, env=env, log_dir=self.log_dir)
        return self.services[name]

    def restart(self, *names: str) -> None:
        """Stop `names` at once (SIGTERM, a clean stop) and start them again, each restoring while the others do."""
        stop_all(self.services[name] for name in names)
        for service in [self.start(name) for name in names]:
            service.wait_ready(120)

    def topic(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def read_all(self, name: str, settle_s: float = 1.0) -> list:
        """Every event of a topic (a batch envelope's items in order), read from the beginning to the end offsets seen
        at the start."""
        return [event for record in self.read_raw(name, settle_s) for event in decode_all(record.value)]

    def read_raw(self, name: str, settle_s: float = 1.0) -> list:
        """Every committed record of a topic as it is (key, value, headers), from the beginning to the end seen now."""
        return records_to_end(self.bootstrap, self.topic(name), settle_s)


def token_for(player_id: str, ttl_s: int = 3600) -> str:
    return issue_token(SESSION_KEYS, player_id, time.time_ns() // 1_000_000 + ttl_s * 1000)


@pytest.fixture(scope="module")
def platform_factory(kafka_bootstrap: str, tmp_path_factory) -> Iterator:
    """`platform_factory(**spin_env)`: topics under a fresh prefix, wallet + jackpot + spin running and ready."""
    made: list[Platform] = []

    def make(**spin_env: str) -> Platform:
        prefix = f"t{uuid.uuid4().hex[:12]}."
        ensure_topics(kafka_bootstrap, prefix=prefix)
        env = {**SERVICE_ENV, "REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
        platform = Platform(
            kafka_bootstrap, prefix, tmp_path_factory.mktemp("spin-platform"), env, service_env={"spin": dict(spin_env)}
        )
        made.append(platform)
        for name in ("wallet", "jackpot"):
            platform.start(name)
        platform.start("spin")
        for service in platform.services.values():
            service.wait_ready(120)
        return platform

    yield make
    for platform in made:
        stop_all(platform.services.values())
        admin = admin_client(kafka_bootstrap, client_id="reelstream-spin-tests")
        try:  # the contract topics and whatever the services created under the prefix (e.g. changelogs)
            names = [name for name in admin.list_topics() if name.startswith(platform.prefix)]
        finally:
            admin.close()
        delete_topics(kafka_bootstrap, names)


def client_for(platform: Platform) -> ReelstreamClient:
    return ReelstreamClient(bootstrap_servers=platform.bootstrap, topic_prefix=platform.prefix)
