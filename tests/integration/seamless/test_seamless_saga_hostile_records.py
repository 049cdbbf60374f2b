"""The seamless saga's loop keeps serving through the hostile records of its topics, on a real broker.

Scenario: the saga's loop (services/seamless_saga/adapters/service.py) runs on a fresh prefix with every writer's
signing key; the spin principal puts one seamless bet on wallet.internal, which the saga decides. Then the saga's
principal (the only one the ACLs let write its topics) writes hostile records onto wallet.seamless-calls and
wallet.seamless: 200 the fuzzer draws for the two topics (reelstream/chaos/fuzz.py), and by hand an outcome of the bet
unsigned and one signed with the spin service's key (forged), one signed off its player's partition, signed ones the
saga cannot decode (a field the command lacks, a status no protocol maps to), and an unsigned fact of a round nobody
bet, on wallet.seamless. Then the genuine outcome: the bet is accepted, once (the genuine outcome written twice), the
loop still runs, and nothing the hostile records carried is on wallet.seamless. A restarted loop restores through the
forged fact and serves again.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import datetime, timezone

import pytest

from reelstream.chaos.campaign import draw_records
from reelstream.chaos.fuzz import SEAMLESS_TOPICS
from reelstream.chaos.writers import HostileWriter
from shared import records, signing
from shared.config import load_settings
from shared.events import encode, envelope
from shared.events.seamless import RecordCallOutcome, SeamlessBetAccepted, SeamlessBetDecided
from shared.partitioning import partition_for
from shared.topics import PLAYER_PARTITIONS, SEAMLESS_SAGA, WALLET_INTERNAL, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS
from shared.waits import wait_until_async

from services.seamless_saga.core.state import Phase
from tests.integration.spin.conftest import Platform
from tests.support.saga_loop import Saga, seamless_facts, signed, write
from tests.support.seamless_saga import PLAYER, debit, wager_id

pytestmark = pytest.mark.integration
HOSTILE = 200


def _hand_made(bet_id: uuid.UUID) -> list[tuple]:
    """The hand-made hostile records for wallet.seamless-calls: (key, value, headers, partition)."""
    outcome = RecordCallOutcome(
        player_id=PLAYER, call_id=bet_id, attempt=1, status="OK", operator_status="RS_OK", balance_minor=10**12
    )
    key, value, _, _ = signed(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, outcome)
    home = partition_for(key, PLAYER_PARTITIONS)
    unsigned = (key, value, records.headers_for(SEAMLESS_SAGA), None)
    as_spin = signing.sign_one("spin", WALLET_SEAMLESS_CALLS, key, value, records.headers_for(SEAMLESS_SAGA))
    foreign = (key, value, list(as_spin), None)
    elsewhere = signed(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, outcome, partition=(home + 1) % PLAYER_PARTITIONS)
    broken = []
    for old, new in ((b'"attempt":1', b'"attempt":1,"x":1'), (b'"status":"OK"', b'"status":"RS_OK"')):
        wrong = value.replace(old, new, 1)
        broken.append((key, wrong, records.signed_headers(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, key, wrong), None))
    return [unsigned, foreign, elsewhere, *broken]


async def test_the_sagas_loop_refuses_every_hostile_record_of_its_topics_and_keeps_serving(
    kafka_bootstrap, fresh_prefix, tmp_path
):
    settings = load_settings({**os.environ, "REELSTREAM_TOPIC_PREFIX": fresh_prefix})
    platform = Platform(kafka_bootstrap, fresh_prefix, tmp_path, {})
    saga = Saga(settings)
    try:
        await saga.start()
        bet = envelope(debit(1).data, source="spin", time=datetime.now(timezone.utc))  # within the de-dup window
        key, value = bet.key, encode(bet)
        signed_bet = records.signed_headers("spin", WALLET_INTERNAL, key, value)
        await asyncio.to_thread(write, platform, "spin", WALLET_INTERNAL, [(key, value, signed_bet, None)])

        async def decided() -> list:
            facts = await asyncio.to_thread(seamless_facts, platform)
            return [f for f in facts if isinstance(f.data, SeamlessBetDecided)]

        (bet_decided,) = await wait_until_async(decided, 60, what="the bet decided")
        drawn = draw_records(47, HOSTILE, datetime.now(timezone.utc), signing.sign_one, (PLAYER,), SEAMLESS_TOPICS)
        with HostileWriter(kafka_bootstrap, platform.topic) as writer:
            written = await asyncio.to_thread(writer.write, drawn)
        assert len(written.taken) + len(written.refused) == HOSTILE
        forged_fact = envelope(
            SeamlessBetDecided(**{**bet_decided.data.model_dump(), "wager_id": wager_id(99)}),
            source="forger",
            time=datetime.now(timezone.utc),
        )
        await asyncio.to_thread(
            write,
            platform,
            SEAMLESS_SAGA,
            WALLET_SEAMLESS,
            [(key, encode(forged_fact), records.headers_for(SEAMLESS_SAGA), None)],
        )
        await asyncio.to_thread(write, platform, SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, _hand_made(bet_decided.id))

        genuine = RecordCallOutcome(
            player_id=PLAYER, call_id=bet_decided.id, attempt=1, status="OK", operator_status="RS_OK", balance_minor=900
        )
        outcome = signed(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, genuine, id_=uuid.uuid4())
        await asyncio.to_thread(write, platform, SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, [outcome, outcome])

        async def accepted() -> list:
            facts = await asyncio.to_thread(seamless_facts, platform)
            return [f for f in facts if isinstance(f.data, SeamlessBetAccepted)]

        (bet_accepted,) = await wait_until_async(accepted, 60, what="the genuine outcome decided past the hostile")
        assert bet_accepted.data.wager_id == wager_id(1)
        assert not saga.task.done(), "the loop still runs"
        facts = await asyncio.to_thread(seamless_facts, platform)
        assert {f.data.wager_id for f in facts} == {wager_id(1)}, "nothing the hostile records carried was decided"
        assert len([f for f in facts if isinstance(f.data, SeamlessBetAccepted)]) == 1

        await saga.stop()
        service = await saga.start()  # its restore meets the forged fact on wallet.seamless
        home = partition_for(PLAYER.encode(), PLAYER_PARTITIONS)
        rounds = service.loop.states[home].rounds
        assert {wager: r.phase for wager, r in rounds.items()} == {str(wager_id(1)): Phase.ACCEPTED}
        assert not saga.task.done()
    finally:
        await saga.stop()
