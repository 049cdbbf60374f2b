"""The seamless saga signs its own records: the wallet's key signs nothing its readers take, on a real secured broker.

Scenario: the saga's loop runs on a fresh deployment prefix with every writer's signing key; the spin principal puts
one seamless bet on wallet.internal, which the saga decides. Then what a compromised wallet (its key) could forge is
written by the one principal the broker lets write the saga's topics, the saga's own (the wallet's principal may not:
test_principals.py): on wallet.seamless-calls the operator's OK to the bet with a balance of 10^12, and on
wallet.seamless the bet accepted, each signed with the wallet's key, once naming the wallet as its writer and once
naming the saga. Then the genuine answer, the operator's refusal, signed by the saga. The forged OK moved nothing: the
bet is refused, never accepted; a restarted loop restores through the forged facts to the refused round; the audit
folds neither forged fact and names the one posing as the saga an impersonation (the one that names the wallet is
openly someone else's, quarantined and counted, services/audit/core/trust.py).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import datetime, timezone

import pytest

from services.audit.adapters.runner import audit_platform
from services.audit.core.scope import Scope
from services.audit.core.trust import CHECK
from services.seamless_saga.core.state import Phase
from shared import records, signing
from shared.config import load_settings
from shared.events import encode, envelope
from shared.events.seamless import RecordCallOutcome, SeamlessBetAccepted, SeamlessBetDecided, SeamlessBetRefused
from shared.partitioning import partition_for
from shared.topics import PLAYER_PARTITIONS, SEAMLESS_SAGA, WALLET_INTERNAL, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS
from shared.waits import wait_until_async
from tests.integration.spin.conftest import Platform
from tests.support.saga_loop import Saga, seamless_facts, signed, write
from tests.support.seamless_saga import OPERATOR, PLAYER, debit, wager_id

pytestmark = pytest.mark.integration
CLAIMS = ("wallet", SEAMLESS_SAGA)  # the writer a forged record names: its true signer, or the topic's owner


def _wallet_signed(topic: str, data) -> list[tuple]:
    """`data` about PLAYER signed with the wallet's key, once per writer it may claim: (key, value, headers, None)."""
    value = encode(envelope(data, source="forger", time=datetime.now(timezone.utc), id=uuid.uuid4()))
    key = PLAYER.encode()
    return [
        (key, value, signing.sign_one("wallet", topic, key, value, records.headers_for(claimed)), None)
        for claimed in CLAIMS
    ]


async def _facts_of(platform: Platform, kind: type) -> list:
    return [f for f in await asyncio.to_thread(seamless_facts, platform) if isinstance(f.data, kind)]


async def test_records_the_wallets_key_signed_on_the_sagas_topics_move_nothing_and_are_named(
    secured, keyed, deployment, tmp_path
):
    settings = load_settings({**os.environ, "REELSTREAM_TOPIC_PREFIX": deployment})
    platform = Platform(secured, deployment, tmp_path, {})
    saga = Saga(settings)
    try:
        await saga.start()
        bet = envelope(debit(1).data, source="spin", time=datetime.now(timezone.utc))
        key, value = bet.key, encode(bet)
        spin_signed = records.signed_headers("spin", WALLET_INTERNAL, key, value)
        await asyncio.to_thread(write, platform, "spin", WALLET_INTERNAL, [(key, value, spin_signed, None)])
        (decided,) = await wait_until_async(lambda: _facts_of(platform, SeamlessBetDecided), 60, what="the bet")

        ok = RecordCallOutcome(
            player_id=PLAYER, call_id=decided.id, attempt=1, status="OK", operator_status="RS_OK", balance_minor=10**12
        )
        accepted = SeamlessBetAccepted(
            wager_id=wager_id(1),
            player_id=PLAYER,
            operator_id=OPERATOR,
            recorded_at=datetime.now(timezone.utc),
            amount_minor=decided.data.amount_minor,
            currency=decided.data.currency,
        )
        forged_calls = _wallet_signed(WALLET_SEAMLESS_CALLS, ok)
        await asyncio.to_thread(write, platform, SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, forged_calls)
        forged_facts = _wallet_signed(WALLET_SEAMLESS, accepted)
        await asyncio.to_thread(write, platform, SEAMLESS_SAGA, WALLET_SEAMLESS, forged_facts)
        refusal = RecordCallOutcome(
            player_id=PLAYER, call_id=decided.id, attempt=1, status="INSUFFICIENT_FUNDS", operator_status="RS_ERROR"
        )
        genuine = signed(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, refusal)
        await asyncio.to_thread(write, platform, SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, [genuine])

        (refused,) = await wait_until_async(lambda: _facts_of(platform, SeamlessBetRefused), 60, what="the refusal")
        assert refused.data.wager_id == wager_id(1)
        assert await _facts_of(platform, SeamlessBetAccepted) == [], "the forged OK was never decided"
        assert not saga.task.done(), "the loop still runs"

        await saga.stop()
        service = await saga.start()  # its restore meets the forged facts on wallet.seamless
        rounds = service.loop.states[partition_for(PLAYER.encode(), PLAYER_PARTITIONS)].rounds
        assert {wager: r.phase for wager, r in rounds.items()} == {str(wager_id(1)): Phase.REFUSED}
    finally:
        await saga.stop()

    run = await asyncio.to_thread(audit_platform, settings, Scope(), None, False)
    quarantined = [q for q in run.result.facts.quarantined if q.where.startswith(f"{WALLET_SEAMLESS}[")]
    assert len(quarantined) == len(forged_facts), "neither forged fact is folded"
    (named,) = [d for d in run.discrepancies if d.check == CHECK and d.subject == WALLET_SEAMLESS]
    assert f"claims '{SEAMLESS_SAGA}' but signed by 'wallet'" in named.detail, "the one posing as the saga is named"
