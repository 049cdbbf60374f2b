"""One-call topic set-up for tools and tests: the platform's topics under an optional prefix and, on a broker with an
authorizer, every role's ACLs under it, removed again with its topics (shared.acls)."""

from __future__ import annotations

from shared.acls import grant_prefix, revoke_prefix
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
        reports = _ensure_topics(admin, specs, replication_factor, prefix=prefix)
        grant_prefix(admin, prefix)
        return reports
    finally:
        admin.close()


def deployment_prefixes(names: list[str]) -> set[str]:
    """The deployment prefixes of prefixed platform topic names (`<prefix><declared name>`)."""
    declared = sorted((spec.name for spec in ALL_TOPICS), key=len, reverse=True)
    found = set()
    for name in names:
        match = next((spec_name for spec_name in declared if name.endswith(spec_name)), None)
        if match and len(name) > len(match):
            found.add(name[: -len(match)])
    return found


def topics_under(admin, prefix: str) -> list[str]:
    """Every topic on the broker whose name starts with `prefix` (a deployment's own and faust-made ones alike)."""
    return [name for name in admin.list_topics() if name.startswith(prefix)]


def prefixed_topics(bootstrap_servers: str, prefix: str) -> list[str]:
    """`topics_under` with an admin client of its own."""
    admin = admin_client(bootstrap_servers, client_id="reelstream-topics")
    try:
        return topics_under(admin, prefix)
    finally:
        admin.close()


def delete_prefixed(bootstrap_servers: str, prefix: str) -> None:
    """Delete every topic under a test or benchmark deployment's unique prefix."""
    delete_topics(bootstrap_servers, prefixed_topics(bootstrap_servers, prefix))


def delete_topics(bootstrap_servers: str, names: list[str]) -> None:
    """Delete the named topics that exist, and the ACLs of their deployment prefixes (test clean-up of prefixed
    deployments only)."""
    admin = admin_client(bootstrap_servers, client_id="reelstream-topics")
    try:
        present = set(admin.list_topics())
        doomed = [name for name in names if name in present]
        if doomed:
            admin.delete_topics(doomed)
        for prefix in deployment_prefixes(names):
            revoke_prefix(admin, prefix)
    finally:
        admin.close()
