"""Every Kafka topic of the platform as code: names, keys, partitions and configs (`reelstream topics create`);
player-keyed topics are co-partitioned, network-keyed ones few (docs/operations.md, "Topics")."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from shared import operators
from shared.config import COMMAND_RETENTION_MS

PLAYER_PARTITIONS = 6
NETWORK_PARTITIONS = 2
POOL_PARTITIONS = 3
DLQ_PARTITIONS = 1

_FOREVER = {"retention.ms": "-1", "retention.bytes": "-1"}
_BROKER_TIME = {"message.timestamp.type": "LogAppendTime"}


@dataclass(frozen=True)
class TopicSpec:
    name: str
    key: str
    partitions: int
    kind: str  # "request" | "command" | "event" | "meter" | "dlq" | "internal" | "snapshot" | "answer"
    configs: dict[str, str] = field(default_factory=dict)
    public: bool = False
    # The roles (shared/roles.py) whose principals may write / read this topic: the ACLs are generated from these.
    writers: tuple[str, ...] = ()
    readers: tuple[str, ...] = ()


# Every topic is readable by the auditor and ops. Ops re-drives dead letters onto their source topics, so it may write
# every topic that has a dead-letter topic; what keeps ops from minting is the writers' signatures on the records.
_OVERSIGHT = ("auditor", "ops")
# The seamless saga's own principal and signing writer: it alone writes its two topics (services/seamless_saga/).
SEAMLESS_SAGA = "seamless-saga"


def _command(
    name: str, key: str, partitions: int, public: bool, writers: tuple[str, ...], readers: tuple[str, ...]
) -> TopicSpec:
    # Requests and commands carry bearer tokens and personal intent: finite retention, longer than the de-dup window.
    configs = {"retention.ms": str(COMMAND_RETENTION_MS), "cleanup.policy": "delete", **_BROKER_TIME}
    return TopicSpec(name, key, partitions, "command", configs, public, writers + ("ops",), readers + _OVERSIGHT)


def _events(
    name: str, key: str, partitions: int, public: bool, writers: tuple[str, ...], readers: tuple[str, ...]
) -> TopicSpec:
    configs = {"cleanup.policy": "delete", **_FOREVER, **_BROKER_TIME}
    return TopicSpec(name, key, partitions, "event", configs, public, writers + ("ops",), readers + _OVERSIGHT)


SPIN_REQUESTS = "spin.requests"
SPIN_EVENTS = "spin.events"
SPIN_JOURNAL = "spin.journal"
WALLET_COMMANDS = "wallet.commands"
WALLET_EVENTS = "wallet.events"
JACKPOT_COMMANDS = "jackpot.commands"
JACKPOT_EVENTS = "jackpot.events"
JACKPOT_METERS = "jackpot.meters"
# The money path's internal commands, which only the spin service writes (the broker refuses everyone else): debit,
# place, settle and refund for the wallet; contributions and claims for the jackpot (docs/security.md).
WALLET_INTERNAL = "wallet.internal"
JACKPOT_INTERNAL = "jackpot.internal"
# Internal: the seamless saga's record of a seamless operator's rounds (docs/seamless.md): every bet, win and rollback
# it decided to call the operator's wallet with, and every answer it got; kept forever like wallet.events.
WALLET_SEAMLESS = "wallet.seamless"
# Internal: what each attempt of a seamless call got, handed by the outbox to the saga's loop, which decides on it.
WALLET_SEAMLESS_CALLS = "wallet.seamless-calls"
# Internal: JackpotWon / ClaimRejected, copied by the jackpot (in the transaction that writes them to the network-keyed
# jackpot.events) to the claiming player's partition.
SPIN_JACKPOT_ANSWERS = "spin.jackpot-answers"
# The monitor's integrity alerts (RTP out of its band, pool balances drifting), keyed by the cell or pool they name.
MONITOR_ALERTS = "monitor.alerts"
MONITOR_PARTITIONS = 1
# Each operator's game front ends (shared/operators.py): they put requests and read meters as `game-client` does.
_OPERATOR_CLIENTS = tuple(operators.client_role(operator_id) for operator_id in operators.OPERATORS)
# Each operator's cashier: writes the cashier's commands as `cashier` does, signed with its own key.
_OPERATOR_CASHIERS = tuple(operators.cashier_role(operator_id) for operator_id in operators.OPERATORS)

CONTRACT_TOPICS: tuple[TopicSpec, ...] = (
    _command(
        SPIN_REQUESTS,
        "player id",
        PLAYER_PARTITIONS,
        True,
        writers=("game-client", *_OPERATOR_CLIENTS),
        readers=("spin",),
    ),
    _events(
        SPIN_EVENTS,
        "player id",
        PLAYER_PARTITIONS,
        True,
        writers=("spin",),
        readers=("spin", "projector", "game-client", "monitor"),
    ),
    # The spin service's own facts (wager accepted, seed drawn, ...) before anything reveals an outcome; kept forever.
    _events(SPIN_JOURNAL, "player id", PLAYER_PARTITIONS, False, writers=("spin",), readers=("spin", "projector")),
    _command(
        WALLET_COMMANDS,
        "player id",
        PLAYER_PARTITIONS,
        True,
        writers=("cashier", *_OPERATOR_CASHIERS, "spin"),
        readers=("wallet",),
    ),
    _events(
        WALLET_EVENTS,
        "player id",
        PLAYER_PARTITIONS,
        True,
        writers=("wallet",),
        readers=("wallet", "spin", "projector", "cashier"),
    ),
    _command(
        JACKPOT_COMMANDS, "network id", NETWORK_PARTITIONS, False, writers=("spin", "operator"), readers=("jackpot",)
    ),
    _events(
        JACKPOT_EVENTS,
        "network id",
        NETWORK_PARTITIONS,
        False,
        writers=("jackpot",),
        readers=("jackpot", "projector", "operator", "monitor"),
    ),
    TopicSpec(
        JACKPOT_METERS,
        "pool id",
        POOL_PARTITIONS,
        "meter",
        {"cleanup.policy": "compact", "min.compaction.lag.ms": "0", "segment.ms": "3600000", **_BROKER_TIME},
        public=True,
        writers=("jackpot", "ops"),
        readers=("projector", "game-client", *_OPERATOR_CLIENTS, "operator", "monitor") + _OVERSIGHT,
    ),
    _events(MONITOR_ALERTS, "cell or pool id", MONITOR_PARTITIONS, True, writers=("monitor",), readers=()),
)


def _internal_commands(name: str, key: str, partitions: int, *readers: str) -> TopicSpec:
    # The commands' retention and broker time; written by the spin service alone (no ops: a re-drive never writes
    # here, ops/rules.py), read by the services that decide them.
    return replace(_command(name, key, partitions, False, writers=(), readers=readers), writers=("spin",))


# Co-partitioned with wallet.commands / jackpot.commands: the wallet and the jackpot read both in one loop, one book
# per partition number (a player's deposit and debit meet one state; a claim follows its wager's contributions).
INTERNAL_COMMAND_TOPICS: tuple[TopicSpec, ...] = (
    _internal_commands(WALLET_INTERNAL, "player id", PLAYER_PARTITIONS, "wallet", SEAMLESS_SAGA),
    _internal_commands(JACKPOT_INTERNAL, "network id", NETWORK_PARTITIONS, "jackpot"),
)


def dlq_name(topic: str) -> str:
    return f"{topic}.dlq"


_SERVICES = ("spin", "wallet", "jackpot", "projector", SEAMLESS_SAGA)  # the monitor dead-letters nothing


# The largest record batch a source topic takes: the broker's message.max.bytes default, which none overrides.
SOURCE_MAX_MESSAGE_BYTES = 1024 * 1024 + 12
# A dead letter is its source record unchanged (a token's hash is never longer than the token) plus its refusal
# headers (a few KiB at most; shared/dead_letters.py), so its topic takes any record its source topic took, with room
# to spare; the producers that write dead letters raise their request bound to match.
DLQ_MAX_MESSAGE_BYTES = 2 * 1024 * 1024


def _dlq(spec: TopicSpec) -> TopicSpec:
    # Dead letters are kept forever: nothing undecodable is ever silently dropped. The services that read the source
    # topic write its dead letters; only oversight reads them (they may hold what a client sent, tokens included).
    writers = tuple(role for role in spec.readers if role in _SERVICES)
    # The monitor counts dead letters by reason for its ops page.
    return TopicSpec(
        dlq_name(spec.name),
        spec.key,
        DLQ_PARTITIONS,
        "dlq",
        {"cleanup.policy": "delete", "max.message.bytes": str(DLQ_MAX_MESSAGE_BYTES), **_FOREVER},
        writers=writers,
        readers=_OVERSIGHT + ("monitor",),
    )


DLQ_TOPICS: tuple[TopicSpec, ...] = (
    tuple(_dlq(spec) for spec in CONTRACT_TOPICS if spec.kind == "command")
    + (
        _dlq(CONTRACT_TOPICS[1]),
        _dlq(CONTRACT_TOPICS[4]),
        _dlq(CONTRACT_TOPICS[6]),
        # The projector reads these two as well; what it cannot decode there needs a dead-letter topic too.
        _dlq(CONTRACT_TOPICS[2]),
        _dlq(CONTRACT_TOPICS[7]),
    )
    + tuple(_dlq(spec) for spec in INTERNAL_COMMAND_TOPICS)
)


INTERNAL_TOPICS: tuple[TopicSpec, ...] = (
    TopicSpec(
        SPIN_JACKPOT_ANSWERS,
        "player id",
        PLAYER_PARTITIONS,
        "internal",
        {"cleanup.policy": "delete", **_FOREVER, **_BROKER_TIME},
        writers=("jackpot",),
        readers=("spin",) + _OVERSIGHT,
    ),
    TopicSpec(
        WALLET_SEAMLESS,
        "player id",
        PLAYER_PARTITIONS,
        "internal",
        {"cleanup.policy": "delete", **_FOREVER, **_BROKER_TIME},
        writers=(SEAMLESS_SAGA,),
        readers=(SEAMLESS_SAGA, "spin") + _OVERSIGHT,
    ),
    TopicSpec(
        WALLET_SEAMLESS_CALLS,
        "player id",
        PLAYER_PARTITIONS,
        "internal",
        {"cleanup.policy": "delete", "retention.ms": str(COMMAND_RETENTION_MS), **_BROKER_TIME},
        writers=(SEAMLESS_SAGA,),
        readers=(SEAMLESS_SAGA,) + _OVERSIGHT,
    ),
)


def answers_spec(operator_id: str) -> TopicSpec:
    """`spin.answers.<operator>`: the spin service's answers to that operator's players, the bytes of spin.events
    (which stays the record kept forever). A delivery channel: finite retention like the requests; only the
    operator's own game-client role reads it."""
    configs = {"retention.ms": str(COMMAND_RETENTION_MS), "cleanup.policy": "delete", **_BROKER_TIME}
    readers = (operators.client_role(operator_id),) + _OVERSIGHT
    return TopicSpec(
        operators.answers_topic(operator_id),
        "player id",
        PLAYER_PARTITIONS,
        "answer",
        configs,
        True,
        writers=("spin",),
        readers=readers,
    )


def wallet_answers_spec(operator_id: str) -> TopicSpec:
    """`wallet.answers.<operator>`: the wallet's results of that operator's cashier commands (deposits, withdrawals,
    limits, self-exclusions and their refusals), the bytes of wallet.events; a delivery channel like `answers_spec`,
    read only by the operator's own cashier role."""
    return replace(
        answers_spec(operator_id),
        name=operators.wallet_answers_topic(operator_id),
        writers=("wallet",),
        readers=(operators.cashier_role(operator_id),) + _OVERSIGHT,
    )


ANSWER_TOPICS: tuple[TopicSpec, ...] = tuple(answers_spec(operator_id) for operator_id in operators.OPERATORS) + tuple(
    wallet_answers_spec(operator_id) for operator_id in operators.OPERATORS
)

# `<service>.snapshots` (shared/snapshots.py): each partition's state image, one snapshot partition per state
# partition. Compacted on slot keys (`<partition>/<slot>/...`, two slots written in turn), so the newest two
# generations survive compaction and an unusable newest one falls back to the one before, not to offset 0; never
# deleted by time (a quiet partition's snapshot stays valid for years). Small segments let the cleaner keep up, so a
# restore's scan of the partition stays near two generations. Only the service writes and reads its own; oversight
# reads them. A snapshot is a cache: without the topic a service folds its events from the start (slowly).
SPIN_SNAPSHOTS = "spin.snapshots"
WALLET_SNAPSHOTS = "wallet.snapshots"
JACKPOT_SNAPSHOTS = "jackpot.snapshots"
_SNAPSHOT_CONFIGS = {
    "cleanup.policy": "compact",
    "retention.ms": "-1",
    "min.compaction.lag.ms": "0",
    "min.cleanable.dirty.ratio": "0.1",
    "segment.ms": "600000",
    "segment.bytes": str(64 * 1024 * 1024),
    "max.message.bytes": str(1024 * 1024),
}


def _snapshots(name: str, service: str, partitions: int) -> TopicSpec:
    return TopicSpec(
        name,
        "partition/slot",
        partitions,
        "snapshot",
        dict(_SNAPSHOT_CONFIGS),
        False,
        (service,),
        (service,) + _OVERSIGHT,
    )


SNAPSHOT_TOPICS: tuple[TopicSpec, ...] = (
    _snapshots(SPIN_SNAPSHOTS, "spin", PLAYER_PARTITIONS),
    _snapshots(WALLET_SNAPSHOTS, "wallet", PLAYER_PARTITIONS),
    _snapshots(JACKPOT_SNAPSHOTS, "jackpot", NETWORK_PARTITIONS),
)

ALL_TOPICS: tuple[TopicSpec, ...] = (
    CONTRACT_TOPICS + INTERNAL_COMMAND_TOPICS + DLQ_TOPICS + INTERNAL_TOPICS + SNAPSHOT_TOPICS + ANSWER_TOPICS
)


def spec(name: str) -> TopicSpec:
    for topic in ALL_TOPICS:
        if topic.name == name:
            return topic
    raise KeyError(f"unknown topic {name!r}")


def declared_name(physical: str) -> str:
    """The declared topic a physical name is (a deployment's prefix + the name): the longest name it ends with."""
    names = [topic.name for topic in ALL_TOPICS if physical.endswith(topic.name)]
    if not names:
        raise ValueError(f"{physical!r} is no declared topic")
    return max(names, key=len)


# The clients outside the platform: game front ends and cashiers (the Go and Node examples; kafkajs decodes no zstd).
_CLIENT_READERS = frozenset(("game-client", "cashier", *_OPERATOR_CLIENTS, *_OPERATOR_CASHIERS))


def read_by_clients(topic: TopicSpec) -> bool:
    """Whether a client outside the platform reads the topic: its batches keep the codec the client guide names."""
    return not _CLIENT_READERS.isdisjoint(topic.readers)


def compressed_by_producers(physical: str) -> bool:
    """Whether the platform's producers write zstd batches to a topic (a deployment's prefix + a declared name): only
    the platform reads it. Undeclared topics stay uncompressed."""
    try:
        return not read_by_clients(spec(declared_name(physical)))
    except ValueError:
        return False


def with_min_insync(configs: dict[str, str], replication_factor: int) -> dict[str, str]:
    """min.insync.replicas for a replication factor: 1 on a single node, rf - 1 (at least 2) on a cluster."""
    minimum = 1 if replication_factor < 3 else replication_factor - 1
    return {**configs, "min.insync.replicas": str(minimum)}
