"""Reconciliation's reading side: reelstream's record (wallet.seamless and jackpot.events, read once by the audit's
reader: no consumer group, committed records only, each checked as its owner's), the operator's list from its wallet's
feed, and what the operator owes the jackpot networks."""

from __future__ import annotations

from dataclasses import dataclass

from seamless.client import WalletClient
from seamless.feed import read_feed
from seamless.reconcile import Difference, differences
from shared.invariant import invariant
from shared.pools import load_pools
from shared.topics import JACKPOT_EVENTS, WALLET_SEAMLESS

from services.audit.adapters.topics import read_topics
from services.audit.core.collect import Fact, collect
from services.audit.core.owed import Row, owed_rows
from services.audit.core.pools import fold_pools
from services.audit.core.seamless import fold_rounds
from services.seamless_saga.core.asked import asked


@dataclass(frozen=True)
class OperatorRecord:
    """reelstream's side of reconciliation: wallet.seamless and jackpot.events up to their ends, read once."""

    seamless: list[Fact]
    jackpot: list[Fact]


def read_record(bootstrap: str, prefix: str) -> OperatorRecord:
    """Both topics through the audit's reader and its one trust check (services/audit/core/collect.py): a record
    either topic's owner did not write stops the reading, since a report built past it would not be reelstream's
    record."""
    raw, _ = read_topics(bootstrap, prefix, topics=(WALLET_SEAMLESS, JACKPOT_EVENTS))
    facts = collect(raw)
    untrusted = [f"{record.where}: {record.problem}" for record in facts.quarantined]
    invariant(not untrusted, "; ".join(untrusted[:3]))
    return OperatorRecord(
        seamless=[fact for fact in facts.facts if fact.topic == WALLET_SEAMLESS],
        jackpot=[fact for fact in facts.facts if fact.topic == JACKPOT_EVENTS],
    )


async def reconcile(record: OperatorRecord, operator_id: str, client: WalletClient) -> list[Difference]:
    """The differences between reelstream's record of `operator_id` and its wallet's transaction list. Read the
    record first: a call decided after it was read but applied before the feed is read shows as unknown to
    reelstream."""
    ours = asked((fact.envelope for fact in record.seamless), operator_id)
    return differences(ours, await read_feed(client))


def owed(record: OperatorRecord, operator_id: str) -> list[Row]:
    """What `operator_id` owes the jackpot networks and what the pools credited and paid for its rounds, per network
    and currency (services/audit/core/owed.py)."""
    config = load_pools()
    rounds = fold_rounds(record.seamless)
    return owed_rows(rounds, fold_pools(record.jackpot, config), config, operator_id)
