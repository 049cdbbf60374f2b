"""Reconciliation's reading side: reelstream's record of one operator from wallet.seamless (the audit's reader, no
consumer group, committed records only, each checked as the saga's), the operator's list from its wallet's feed, and
what it owes the jackpot networks from wallet.seamless and jackpot.events."""

from __future__ import annotations

from typing import Any

from seamless.client import WalletClient
from seamless.feed import read_feed
from seamless.reconcile import Difference, differences
from shared import records
from shared.events.envelope import Envelope
from shared.invariant import invariant
from shared.pools import load_pools
from shared.topics import JACKPOT_EVENTS, WALLET_SEAMLESS

from services.audit.adapters.topics import read_topics
from services.audit.core.collect import collect
from services.audit.core.owed import Row, owed_rows
from services.audit.core.pools import fold_pools
from services.audit.core.seamless import fold_rounds
from services.seamless_saga.core.asked import asked


def seamless_facts(bootstrap: str, prefix: str) -> list[Envelope[Any]]:
    """Every fact of wallet.seamless up to its end now; a record its owner did not write stops the reading, since a
    report built past it would not be reelstream's record."""
    raw, _ = read_topics(bootstrap, prefix, topics=(WALLET_SEAMLESS,))
    facts = []
    for record in raw:
        event, problem = records.trusted_event(WALLET_SEAMLESS, record)
        invariant(problem is None, f"{record.where}: {problem}")
        facts.append(event)
    return facts


async def reconcile(bootstrap: str, prefix: str, operator_id: str, client: WalletClient) -> list[Difference]:
    """The differences between reelstream's record of `operator_id` and its wallet's transaction list. The topic is
    read first: a call decided after it was read but applied before the feed is read shows as unknown to reelstream."""
    ours = asked(seamless_facts(bootstrap, prefix), operator_id)
    return differences(ours, await read_feed(client))


def owed(bootstrap: str, prefix: str, operator_id: str) -> list[Row]:
    """What `operator_id` owes the jackpot networks and what the pools credited and paid for its rounds, per network
    and currency (services/audit/core/owed.py); a record either topic's owner did not write stops the reading."""
    raw, _ = read_topics(bootstrap, prefix, topics=(WALLET_SEAMLESS, JACKPOT_EVENTS))
    facts = collect(raw)
    untrusted = [f"{record.where}: {record.problem}" for record in facts.quarantined]
    invariant(not untrusted, "; ".join(untrusted[:3]))
    config = load_pools()
    rounds = fold_rounds([fact for fact in facts.facts if fact.topic == WALLET_SEAMLESS])
    pools = fold_pools([fact for fact in facts.facts if fact.topic == JACKPOT_EVENTS], config)
    return owed_rows(rounds, pools, config, operator_id)
