"""One-call topic set-up for tools and tests: the platform's topics under an optional prefix (see shared.kafka)."""
from __future__ import annotations

from shared.kafka import TopicReport, admin_client, ensure_topics as _ensure_topics
from shared.topics import ALL_TOPICS, TopicSpec


def ensure_topics(
    bootstrap_servers: str,
    *,
    prefix: str = "",
    replication_factor: int = 1,
    specs: tuple[TopicSpec, ...] = ALL_TOPICS,
) -> list[TopicReport]:
    """Create the missing topics of `specs` under `prefix`; report drift of the existing ones (never altered)."""
    admin = admin_client(bootstrap_servers, client_id="reelstream-topics")
    try:
        return _ensure_topics(admin, specs, replication_factor, prefix=prefix)
    finally:
        admin.close()


def delete_topics(bootstrap_servers: str, names: list[str]) -> None:
    """Delete the named topics that exist (for test clean-up of prefixed deployments only)."""
    admin = admin_client(bootstrap_servers, client_id="reelstream-topics")
    try:
        present = set(admin.list_topics())
        doomed = [name for name in names if name in present]
        if doomed:
            admin.delete_topics(doomed)
    finally:
        admin.close()
