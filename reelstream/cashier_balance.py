"""An operator's own players' balances from the one wallet topic its cashier may read (wallet.answers.<O>), as of each
player's latest cashier result: spins since are left out (docs/security.md)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from kafka import TopicPartition

from shared import records
from shared.events import DecodeError, Envelope, decode
from shared.kafka import consumer
from shared.operators import cashier_role, wallet_answers_topic
from shared.partitioning import partition_for
from shared.topics import PLAYER_PARTITIONS

POLL_MS = 1_000


@dataclass(frozen=True)
class CashierBalance:
    """A player's balance in one currency as the wallet wrote it into the result of `transaction_id`, at `as_of`
    (the wallet's time of that decision: its input's broker time)."""

    player_id: str
    currency: str
    balance_minor: int
    as_of: datetime
    transaction_id: uuid.UUID
    event_type: str


def latest_balances(messages: Iterable[Envelope], player_id: str) -> list[CashierBalance]:
    """Per currency, the balance of the player's latest distinct result in partition order (the wallet's own order of
    decisions for the player), sorted by currency. A repeat is copied again later with the first answer's bytes and
    event id: it is skipped, since its balance is as of its first decision, not of the copy."""
    seen: set[uuid.UUID] = set()
    latest: dict[str, CashierBalance] = {}
    for message in messages:
        data = message.data
        if message.id in seen or getattr(data, "player_id", None) != player_id:
            continue
        seen.add(message.id)
        balance_minor, currency = getattr(data, "balance_after_minor", None), getattr(data, "currency", None)
        if balance_minor is None or currency is None:
            continue  # a limit, a self-exclusion, a refusal before the account existed: no balance carried
        latest[currency] = CashierBalance(
            player_id, currency, balance_minor, data.recorded_at, data.transaction_id, message.type
        )
    return [latest[currency] for currency in sorted(latest)]


def player_records(bootstrap_servers: str, role: str, topic: str, player_id: str) -> list:
    """Every committed record of the player's key on its partition of `topic` (physical name), from the beginning to
    the end offset seen at the start, read as `role`."""
    reader = consumer(bootstrap_servers, group_id=None, role=role)  # read_committed, no commits
    partition = TopicPartition(topic, partition_for(player_id.encode(), PLAYER_PARTITIONS))
    try:
        reader.assign([partition])
        reader.seek_to_beginning(partition)
        end = reader.end_offsets([partition])[partition]
        found = []
        while reader.position(partition) < end:
            for batch in reader.poll(timeout_ms=POLL_MS).values():
                found += [r for r in batch if r.offset < end and r.key == player_id.encode()]
        return found
    finally:
        reader.close(autocommit=False)


@dataclass(frozen=True)
class OperatorBalances:
    balances: list[CashierBalance]
    # Records on the topic that are not the wallet's (no valid signature) or not readable: skipped, never folded.
    untrusted: int


def cashier_balances(
    bootstrap_servers: str, topic_prefix: str, operator_id: str, player_id: str, role: str | None = None
) -> OperatorBalances:
    """The player's balances as operator `operator_id`'s cashier sees them (role: cashier.<O> unless given); each
    record's provenance is checked as every consumer checks wallet.events (the wallet's writer id and signature)."""
    logical = wallet_answers_topic(operator_id)
    found = player_records(bootstrap_servers, role or cashier_role(operator_id), topic_prefix + logical, player_id)
    messages, untrusted = [], 0
    for record in found:
        if records.provenance_problem(logical, record.headers, record.value, record.key) is not None:
            untrusted += 1
            continue
        try:
            messages.append(decode(record.value, expect_kind="event"))
        except DecodeError:
            untrusted += 1
    return OperatorBalances(latest_balances(messages, player_id), untrusted)
