"""Reconciliation's reading side: reelstream's record of one operator from wallet.seamless (the audit's reader, no
consumer group, committed records only, each checked as the wallet's) and the operator's list from its wallet's feed."""

from __future__ import annotations

from typing import Any

from seamless.client import WalletClient
from seamless.feed import read_feed
from seamless.reconcile import Difference, differences
from shared import records
from shared.events.envelope import Envelope
from shared.invariant import invariant
from shared.topics import WALLET_SEAMLESS

from services.audit.adapters.topics import read_topics
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
