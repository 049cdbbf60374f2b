"""No saga left open, on the real broker: a claim and a contribution dated two hours back, as a spin that lagged that
long behind its input dates them, are paid and applied: a claim refused by age would leave its spin settled with 0
from the pool, and a contribution refused by age the pool short of what the wallet moved into the liability.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from reelstream.processes import spawn
from services.jackpot.adapters.history import read_all
from shared import records
from shared.events import decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.pools import load_pools
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, JACKPOT_EVENTS

pytestmark = pytest.mark.integration
STJERNE = load_pools().network("stjernestoev")
LAG = timedelta(hours=2)


@pytest.fixture
def deployment(kafka_bootstrap: str, tmp_path):
    prefix = f"t-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    yield prefix, env, tmp_path
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def test_a_lagging_spins_claim_is_paid_and_its_contribution_applied(
    deployment, kafka_bootstrap, make_producer, eventually
):
    prefix, env, log_dir = deployment
    contribution = jp.Contribute(
        network_id=STJERNE.network_id,
        contribution_id=uuid.uuid4(),
        game="stjernestoev",
        currency="DKK",
        stake_minor=1000,
        contribution_micro=STJERNE.wager_contribution_micro(1000),
        player_id="p-late",
        operator_id="op-a",
    )
    claim = jp.Claim(
        network_id=STJERNE.network_id,
        claim_id=uuid.uuid4(),
        request_id=uuid.uuid4(),
        player_id="p-late",
        game="stjernestoev",
        tier="jackpot",
        currency="DKK",
        stake_minor=1000,
    )
    writer, sent_at = make_producer(), datetime.now(timezone.utc) - LAG
    for data in (contribution, claim):
        message = envelope(data, source="test", time=sent_at)
        value = encode(message)  # stands in for a lagging spin service
        headers = records.headers_as_owner(JACKPOT_COMMANDS, "spin", message.key, value)
        writer.send(prefix + JACKPOT_COMMANDS, key=message.key, value=value, headers=headers)
    writer.flush(timeout=30)

    def answered():
        facts = [
            event.data
            for record in read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS)
            for event in decode_all(record.value)
        ]
        return facts if any(isinstance(fact, (jp.JackpotWon, jp.ClaimRejected)) for fact in facts) else None

    service = spawn("jackpot", env=env, log_dir=log_dir)
    try:
        service.wait_ready(60)
        facts = eventually(answered, 60, 0.5)
    finally:
        service.stop()
    assert [fact.code for fact in facts if isinstance(fact, jp.ClaimRejected)] == []
    (won,) = [fact for fact in facts if isinstance(fact, jp.JackpotWon)]
    assert (won.claim_id, won.amount_minor > 0) == (claim.claim_id, True)
    applied = [
        item.contribution_id
        for fact in facts
        if isinstance(fact, jp.ContributionsApplied)
        for item in fact.contributions
    ]
    assert applied == [contribution.contribution_id]
