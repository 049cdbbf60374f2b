"""Where the local infrastructure keeps its state (per checkout) and its downloaded jars (per user, survives clones)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# What local development, compose and CI run; the Kubernetes manifests run deploy/k8s/manifests.py's KAFKA_VERSION,
# which the pod-environment smoke test starts locally beside this one (`reelstream infra up --kafka-version`).
KAFKA_VERSION = "3.9.1"
REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(__file__).resolve().parent


@dataclass(frozen=True)
class InfraPaths:
    state: Path  # <repo>/.reelstream: pid files, logs, Kafka log dirs, the Postgres cluster, the env file
    cache: Path  # ~/.cache/reelstream: Kafka jars, fetched once per machine and user
    kafka_version: str = KAFKA_VERSION  # whose jars `kafka_libs` holds and this state's broker runs

    @property
    def env_file(self) -> Path:
        return self.state / "env"

    @property
    def kafka_libs(self) -> Path:
        return self.cache / f"kafka-{self.kafka_version}" / "libs"

    @property
    def kafka_dir(self) -> Path:
        return self.state / "kafka"

    @property
    def postgres_dir(self) -> Path:
        return self.state / "postgres"


def default_paths(environ: dict[str, str] | None = None) -> InfraPaths:
    env = os.environ if environ is None else environ
    state = Path(env.get("REELSTREAM_STATE_DIR", REPO_ROOT / ".reelstream"))
    xdg_cache = Path(env.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    cache = Path(env.get("REELSTREAM_CACHE_DIR", xdg_cache / "reelstream"))
    return InfraPaths(state=state.resolve(), cache=cache.resolve())
