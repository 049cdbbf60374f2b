"""Runtime configuration from environment variables, with local defaults that match `reelstream infra up`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from shared.money import CURRENCIES

LOCAL_KAFKA_BOOTSTRAP = "127.0.0.1:9092"
LOCAL_DATABASE_URL = "postgresql://reelstream:reelstream@127.0.0.1:5433/reelstream"

# Commands older than this (broker time of the record minus the command's CloudEvents `time`) are refused, so
# de-duplication state stays bounded. Request and command topics keep records longer than this window.
DEDUP_WINDOW_MS = 60 * 60 * 1000
# Commands dated further in the future than this are refused too (clocks of clients drift a little).
CLOCK_SKEW_MS = 30 * 1000
# A debited wager is settled or refunded within this, outages of a few minutes included; the audit flags a debit still
# open past it (its spin is lost: e.g. a request another partition's book took, issue #15's P9).
SAGA_TIME_LIMIT_MS = 15 * 60 * 1000
# Request and command topics carry bearer tokens: they keep 7 days, then are deleted.
COMMAND_RETENTION_MS = 7 * 24 * 60 * 60 * 1000
# The largest cashier deposit per currency without an operator override (REELSTREAM_DEPOSIT_CAP_MINOR_<CURRENCY>).
DEFAULT_DEPOSIT_CAPS_MINOR = {"EUR": 1_000_000, "DKK": 7_500_000}  # 10,000.00 EUR; 75,000.00 DKK
# The local state directory (pid files, logs, audit reports): REELSTREAM_STATE_DIR, else .reelstream/ here.
STATE_DIR_ENV = "REELSTREAM_STATE_DIR"
# `reelstream audit` writes its report into AUDIT_DIR under the state directory unless told otherwise, and the ops
# page shows the verdict of the AUDIT_JSON there unless REELSTREAM_AUDIT_REPORT names another report.
AUDIT_DIR = "audit"
AUDIT_JSON = "audit.json"
AUDIT_REPORT_ENV = "REELSTREAM_AUDIT_REPORT"


@dataclass(frozen=True)
class Settings:
    kafka_bootstrap_servers: str
    database_url: str
    # The session-token key ring text (shared.session.key_ring): REELSTREAM_SESSION_KEYS or REELSTREAM_SESSION_SECRET.
    # Empty when neither is set: whatever signs or checks tokens then refuses to start (no secret lives in the source).
    session_secret: str
    environment: str
    # Prefix of every topic and consumer group name: integration tests run whole services on fresh uuid-named topics.
    topic_prefix: str = ""
    deposit_caps_minor: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DEPOSIT_CAPS_MINOR))

    def topic(self, name: str) -> str:
        """The real topic name of a contract topic (e.g. "spin.requests") under this deployment's prefix."""
        return f"{self.topic_prefix}{name}"

    def group(self, service: str) -> str:
        """The consumer group / faust app id of a service."""
        return f"{self.topic_prefix}reelstream-{service}"

    @property
    def faust_broker(self) -> str:
        return ";".join(f"kafka://{host}" for host in self.kafka_bootstrap_servers.split(","))


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    environment = env.get("REELSTREAM_ENV", "local")
    secret = env.get("REELSTREAM_SESSION_KEYS") or env.get("REELSTREAM_SESSION_SECRET", "")
    return Settings(
        kafka_bootstrap_servers=env.get("KAFKA_BOOTSTRAP_SERVERS", LOCAL_KAFKA_BOOTSTRAP),
        database_url=env.get("DATABASE_URL", LOCAL_DATABASE_URL),
        session_secret=secret,
        environment=environment,
        topic_prefix=env.get("REELSTREAM_TOPIC_PREFIX", ""),
        deposit_caps_minor=deposit_caps_minor(env),
    )


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get(STATE_DIR_ENV) or Path.cwd() / ".reelstream")


def audit_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where `reelstream audit` writes its report by default."""
    return state_dir(env) / AUDIT_DIR


def last_audit_report(env: Mapping[str, str] | None = None) -> Path:
    """The audit report whose verdict the ops page shows: REELSTREAM_AUDIT_REPORT, else the audit's default output."""
    env = os.environ if env is None else env
    return Path(env[AUDIT_REPORT_ENV]) if env.get(AUDIT_REPORT_ENV) else audit_dir(env) / AUDIT_JSON


def deposit_caps_minor(env: Mapping[str, str]) -> dict[str, int]:
    """The deposit cap per currency, in minor units; a variable set to a non-positive integer is refused at start."""
    caps = {}
    for currency in CURRENCIES:
        text = env.get(f"REELSTREAM_DEPOSIT_CAP_MINOR_{currency}")
        caps[currency] = DEFAULT_DEPOSIT_CAPS_MINOR[currency] if text is None else int(text)
        if caps[currency] <= 0:
            raise ValueError(f"REELSTREAM_DEPOSIT_CAP_MINOR_{currency} must be a positive integer, got {text!r}")
    return caps
