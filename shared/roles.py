"""Principals and ACLs as code: one Kafka principal per role, its ACLs derived from the topics' writers and readers, its
groups, transactional ids and quotas (pure); only `break-glass` may alter or delete evidence (docs/security.md)."""

from __future__ import annotations

from collections.abc import Callable

from dataclasses import dataclass, field

from shared import operators
from shared.records import OWNERS
from shared.topics import ALL_TOPICS, SEAMLESS_SAGA, TopicSpec

CLUSTER = "kafka-cluster"


@dataclass(frozen=True, order=True)
class AclRule:
    """One rule: principal, resource type (TOPIC | GROUP | TRANSACTIONAL_ID | CLUSTER), name, pattern type
    (LITERAL | PREFIXED), operation (READ, WRITE, DESCRIBE, ...), ALLOW or DENY (a DENY wins over any ALLOW)."""

    principal: str
    resource: str
    name: str
    pattern: str
    operation: str
    permission: str = "ALLOW"


@dataclass(frozen=True)
class Role:
    name: str
    about: str
    # Consumer group and transactional id prefixes (under the deployment's topic prefix).
    group_prefixes: tuple[str, ...] = ()
    transactional_prefixes: tuple[str, ...] = ()
    # Extra rules beyond the topics' writers/readers, as (resource, name, pattern, operation).
    extra: tuple[tuple[str, str, str, str], ...] = ()
    # DENY rules on the live (un-prefixed) resources, as (resource, name, pattern, operation).
    denied: tuple[tuple[str, str, str, str], ...] = ()
    # Per-principal quotas: bytes/s produced and fetched, % of a broker thread's time; None means no quota.
    quotas: dict[str, float] = field(default_factory=dict)

    @property
    def principal(self) -> str:
        return f"User:{self.name}"


def _service(name: str, about: str, transactional: bool = True) -> Role:
    group = f"reelstream-{name}"
    return Role(name, about, group_prefixes=(group,), transactional_prefixes=(group,) if transactional else ())


_OUTSIDE_QUOTAS = {"producer_byte_rate": 1_048_576.0, "consumer_byte_rate": 4_194_304.0, "request_percentage": 50.0}


def _per_operator(ids: tuple[str, ...], role_of: Callable[[str], str], does: str) -> tuple[Role, ...]:
    """One role per operator, named by `role_of`, with its own consumer groups."""
    return tuple(
        Role(role_of(o), f"operator {o}'s {does}", group_prefixes=(f"{role_of(o)}.",), quotas=_OUTSIDE_QUOTAS)
        for o in ids
    )


_ALL = "*"


def roles_for(ids: tuple[str, ...]) -> tuple[Role, ...]:
    """Every role of a deployment whose operators are `ids` (the manifests of an overlay name their own)."""
    return (
        _SHARED_BEFORE
        + _per_operator(ids, operators.client_role, _CLIENT)
        + _CASHIER
        + _per_operator(ids, operators.cashier_role, _CASHIER_OF)
        + _SHARED_AFTER
    )


_SHARED_BEFORE: tuple[Role, ...] = (
    _service("spin", "the spin service: requests in; wallet and jackpot commands, journal and answers out"),
    _service("wallet", "the wallet service: wallet commands in, wallet events out (transactional)"),
    _service("jackpot", "the jackpot service: jackpot commands in, jackpot events and meters out (transactional)"),
    # Its group and transactional ids are the saga loop's (services/seamless_saga/adapters/service.py), no wider.
    Role(
        SEAMLESS_SAGA,
        "the seamless saga: wager commands and call outcomes in; its facts, call outcomes and dead letters out",
        group_prefixes=("reelstream-wallet-seamless",),
        transactional_prefixes=("reelstream-wallet-seamless",),
    ),
    Role("projector", "the projector: every event topic in, PostgreSQL out (no group: positions live in Postgres)"),
    # faust names its changelog and leader topics after the app id (the group): those it may create and use.
    Role(
        "monitor",
        "the read-side monitor (faust): answers, jackpot events and meters in, alerts out; group lags",
        group_prefixes=("reelstream-monitor",),
        extra=(
            ("TOPIC", "reelstream-monitor", "PREFIXED", "CREATE"),
            ("TOPIC", "reelstream-monitor", "PREFIXED", "READ"),
            ("TOPIC", "reelstream-monitor", "PREFIXED", "WRITE"),
            ("TOPIC", "reelstream-monitor", "PREFIXED", "DESCRIBE"),
            ("TOPIC", _ALL, "LITERAL", "DESCRIBE"),
            ("GROUP", _ALL, "LITERAL", "DESCRIBE"),
        ),
    ),
    Role(
        "game-client",
        "a game front end: spin requests out; answers and meters in",
        group_prefixes=("game-client.",),
        quotas=_OUTSIDE_QUOTAS,
    ),
)
# Then one per operator (shared/operators.py): its front ends read only its own players' answers (spin.answers.<O>).
_CLIENT = "game front ends: spin requests out; its players' answers and meters in"
_CASHIER = (
    Role(
        "cashier",
        "the cashier: deposits and withdrawals out, their results in",
        group_prefixes=("cashier.",),
        quotas=_OUTSIDE_QUOTAS,
    ),
)
# Then one per operator: its cashier's commands out (signed with its own key), their results in (wallet.answers.<O>).
_CASHIER_OF = "cashier: its deposits and withdrawals out, their results in"
_SHARED_AFTER: tuple[Role, ...] = (
    Role(
        "operator",
        "pool administration: jackpot commands out, pools and meters in",
        group_prefixes=("operator.",),
        quotas=_OUTSIDE_QUOTAS,
    ),
    Role(
        "auditor",
        "read only: every topic and its configuration",
        group_prefixes=("auditor.",),
        extra=(("TOPIC", _ALL, "LITERAL", "DESCRIBE_CONFIGS"),),
        quotas={"consumer_byte_rate": 33_554_432.0},
    ),
    Role(
        "ops",
        "dead letters, replays into new `replay.` topics, consumer-group resets",
        extra=(
            ("TOPIC", _ALL, "LITERAL", "DESCRIBE_CONFIGS"),
            ("TOPIC", "replay.", "PREFIXED", "CREATE"),
            ("TOPIC", "replay.", "PREFIXED", "WRITE"),
            ("TOPIC", "replay.", "PREFIXED", "READ"),
            ("TOPIC", "replay.", "PREFIXED", "DESCRIBE"),
            ("GROUP", _ALL, "LITERAL", "READ"),
            ("GROUP", _ALL, "LITERAL", "DESCRIBE"),
            ("GROUP", _ALL, "LITERAL", "DELETE"),
        ),
    ),
    Role(
        "admin",
        "provisioning and tools: everything but altering configs or deleting records of the live event topics",
        extra=(
            ("TOPIC", _ALL, "LITERAL", "ALL"),
            ("GROUP", _ALL, "LITERAL", "ALL"),
            ("TRANSACTIONAL_ID", _ALL, "LITERAL", "ALL"),
            ("CLUSTER", CLUSTER, "LITERAL", "ALL"),
        ),
        denied=tuple(
            ("TOPIC", spec.name, "LITERAL", operation)
            for spec in ALL_TOPICS
            if spec.kind == "event"
            for operation in ("ALTER_CONFIGS", "DELETE")
        ),
    ),
    Role(
        "break-glass",
        "evidence changes only, each one failing the next audit: alter topic configs, delete records",
        extra=tuple(
            ("TOPIC", _ALL, "LITERAL", operation)
            for operation in ("DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "DELETE")
        ),
    ),
)
ROLES = roles_for(operators.OPERATORS)
ROLE_NAMES = tuple(role.name for role in ROLES)
BREAK_GLASS = "break-glass"
# The role tools and tests act as when they name none locally (provisioning: creates and deletes deployments).
ADMIN = "admin"


def ends_with_commit_marker(topic: str) -> bool:
    """Whether every write to a contract topic ends with a transaction's commit marker, an offset that holds no record:
    all its writers write in transactions. Ops' dead-letter re-drives (by hand, without one) are left aside."""
    spec = next((spec for spec in ALL_TOPICS if spec.name == topic), None)
    writers = () if spec is None else tuple(writer for writer in spec.writers if writer != "ops")
    return bool(writers) and all(role(writer).transactional_prefixes for writer in writers)


# Who may hold WRITE on a topic one writer alone signs, besides that writer's principal: ops re-drives dead letters
# onto their source topics (it holds no key: a re-driven record verifies as its writer's or not at all), admin
# provisions.
WRITE_BESIDE_OWNERS = frozenset({"ops", ADMIN})


def owner_write_problem(rule: AclRule, prefix: str = "") -> str | None:
    """Why `rule` lets a principal other than its owner's write a topic whose records one writer alone signs
    (shared/records.py OWNERS), or None: the broker keeps a compromised principal from writing what only another
    writer's key may sign. `prefix`: the deployment's topic prefix."""
    holder = rule.principal.removeprefix("User:")
    if rule.resource != "TOPIC" or rule.permission != "ALLOW" or rule.operation not in ("WRITE", "ALL"):
        return None
    if holder in WRITE_BESIDE_OWNERS:
        return None
    for topic, owner in sorted(OWNERS.items()):
        physical = prefix + topic
        covered = rule.name in ("*", physical) if rule.pattern == "LITERAL" else physical.startswith(rule.name)
        if covered and holder != owner:
            return f"{holder} may write {topic}, which only {owner!r} signs"
    return None


def role(name: str) -> Role:
    for candidate in ROLES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"unknown role {name!r}; roles: {', '.join(ROLE_NAMES)}")


def _topic_rules(member: Role, specs: tuple[TopicSpec, ...], prefix: str) -> list[AclRule]:
    rules = []
    for spec in specs:
        operations = (("WRITE",) if member.name in spec.writers else ()) + (
            ("READ",) if member.name in spec.readers else ()
        )
        for operation in operations + (("DESCRIBE",) if operations else ()):
            rules.append(AclRule(member.principal, "TOPIC", prefix + spec.name, "LITERAL", operation))
    return rules


def acl_rules(member: Role, prefix: str = "", specs: tuple[TopicSpec, ...] = ALL_TOPICS) -> list[AclRule]:
    """Every ALLOW rule of one role under a deployment prefix (wildcard and cluster rules only without a prefix:
    they are not the prefix's to grant)."""
    rules = _topic_rules(member, specs, prefix)
    for group in member.group_prefixes:
        rules += [AclRule(member.principal, "GROUP", prefix + group, "PREFIXED", op) for op in ("READ", "DESCRIBE")]
    for transactional in member.transactional_prefixes:
        rules += [
            AclRule(member.principal, "TRANSACTIONAL_ID", prefix + transactional, "PREFIXED", op)
            for op in ("WRITE", "DESCRIBE")
        ]
    for resource, name, pattern, operation in member.extra:
        if pattern == "PREFIXED":
            rules.append(AclRule(member.principal, resource, prefix + name, pattern, operation))
        elif not prefix:
            rules.append(AclRule(member.principal, resource, name, pattern, operation))
    if not prefix:
        rules += [AclRule(member.principal, *denial, "DENY") for denial in member.denied]
    return sorted(set(rules))


def all_rules(prefix: str = "", roles: tuple[Role, ...] = ROLES) -> list[AclRule]:
    return sorted({rule for member in roles for rule in acl_rules(member, prefix)})


def acl_table() -> str:
    """The roles and their rights as a Markdown table (docs/security.md embeds it; a test keeps it current)."""
    lines = [
        "| role | writes | reads | groups / transactional ids (prefixes) | also | quotas |",
        "|---|---|---|---|---|---|",
    ]
    for member in ROLES:
        writes = [spec.name for spec in ALL_TOPICS if member.name in spec.writers]
        reads = [spec.name for spec in ALL_TOPICS if member.name in spec.readers]
        ids = [f"group `{g}`" for g in member.group_prefixes] + [f"txn `{t}`" for t in member.transactional_prefixes]
        also = [f"{op} {resource.lower()} `{name}`" for resource, name, _, op in member.extra]
        also += [f"**DENY** {op} {resource.lower()} `{name}`" for resource, name, _, op in member.denied]
        quotas = [f"{key} {value:,.0f}" for key, value in sorted(member.quotas.items())]
        cells = (
            ", ".join(f"`{name}`" for name in writes),
            ", ".join(f"`{name}`" for name in reads),
            ", ".join(ids),
            ", ".join(also),
            ", ".join(quotas),
        )
        lines.append(f"| `{member.name}` | " + " | ".join(cell or "—" for cell in cells) + " |")
    return "\n".join(lines) + "\n"
