"""The jackpot's answers reach the claiming player's partition atomically with jackpot.events.

Scenario: three claims (of three players), then contributions, are on jackpot.commands. The jackpot service dies in
its first transaction after every record of it was sent and acknowledged (`jackpot.before_commit`): its answers were
written to jackpot.events and their copies to spin.jackpot-answers, yet a read_committed reader sees neither.
Restarted, it answers again: each answer is on jackpot.events once and on spin.jackpot-answers once, on the player's
murmur2 partition, the value byte for byte, a JackpotWon's copy carrying the signed jackpot.events record it proves,
each copy the jackpot's own record (what the spin's runner and rebuild accept).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from reelstream.processes import spawn
from services.jackpot.adapters.history import read_all
from shared import records
from shared.events import decode, decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.partitioning import partition_for
from shared.pools import load_pools
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, JACKPOT_EVENTS, PLAYER_PARTITIONS, SPIN_JACKPOT_ANSWERS

STJERNE = load_pools().network("stjernestoev")
PLAYERS = ("p-ann", "p-bo", "p-cy")
LAG = timedelta(hours=2)
ANSWER_TYPES = (jp.JackpotWon, jp.ClaimRejected)


@pytest.fixture
def deployment(kafka_bootstrap: str, tmp_path):
    prefix = f"t-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {"REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    yield prefix, env, tmp_path
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def _contribution(player: str) -> jp.Contribute:
    return jp.Contribute(
        network_id=STJERNE.network_id,
        contribution_id=uuid.uuid4(),
        game="stjernestoev",
        currency="DKK",
        stake_minor=1000,
        contribution_micro=STJERNE.wager_contribution_micro(1000),
        player_id=player,
        operator_id="op-a",
    )


def _claim(player: str) -> jp.Claim:
    return jp.Claim(
        network_id=STJERNE.network_id,
        claim_id=uuid.uuid4(),
        request_id=uuid.uuid4(),
        player_id=player,
        game="stjernestoev",
        tier="jackpot",
        currency="DKK",
        stake_minor=1000,
    )


def _commands() -> list:
    return [_claim(player) for player in PLAYERS] + [_contribution(PLAYERS[index % 3]) for index in range(30)]


def _produce(make_producer, topic: str, sequence: list, sent_at: datetime | None = None) -> None:
    """`sent_at`: the commands' CloudEvents time (default now), as a spin that lags dates them."""
    writer = make_producer()
    now = sent_at or datetime.now(timezone.utc)
    for data in sequence:
        message = envelope(data, source="test", time=now)
        value = encode(message)  # stands in for the spin service
        headers = records.headers_as_owner(JACKPOT_COMMANDS, "spin", message.key, value)
        writer.send(topic, key=message.key, value=value, headers=headers)
    writer.flush(timeout=30)


def _answers(kafka_bootstrap: str, topic: str, committed: bool = True) -> list:
    found = read_all(kafka_bootstrap, topic, committed=committed)
    return [record for record in found if any(isinstance(e.data, ANSWER_TYPES) for e in decode_all(record.value))]


def test_a_claims_answer_is_on_the_players_partition_atomically_with_jackpot_events(
    deployment, kafka_bootstrap, make_producer, eventually
):
    prefix, env, log_dir = deployment
    events, copies = prefix + JACKPOT_EVENTS, prefix + SPIN_JACKPOT_ANSWERS
    _produce(make_producer, prefix + JACKPOT_COMMANDS, _commands())

    crashed = spawn("jackpot", env={**env, "REELSTREAM_CRASH_AT": "jackpot.before_commit:1"}, log_dir=log_dir)
    try:
        assert crashed.wait_exit(90) == 137, crashed.log_text()[-3000:]
    finally:
        crashed.kill()
    assert "crash hook jackpot.before_commit fired" in crashed.log_text()
    written = sorted(record.value for record in _answers(kafka_bootstrap, events, committed=False))
    assert written, "the first transaction answered a claim"
    assert sorted(record.value for record in _answers(kafka_bootstrap, copies, committed=False)) == written
    assert _answers(kafka_bootstrap, events) == [] and _answers(kafka_bootstrap, copies) == []

    service = spawn("jackpot", env=env, log_dir=log_dir)
    try:
        service.wait_ready(60)
        answered = eventually(lambda: len(_answers(kafka_bootstrap, copies)) == len(PLAYERS) or None, 60, 0.5)
        assert answered
        originals = {decode(record.value).id: record for record in _answers(kafka_bootstrap, events)}
        forwarded = _answers(kafka_bootstrap, copies)
    finally:
        service.stop()
    assert len(originals) == len(forwarded) == len(PLAYERS), "each answer once on each topic"
    for copy in forwarded:
        answer = decode(copy.value)
        original = originals[answer.id]
        assert copy.value == original.value
        assert copy.key == answer.data.player_id.encode()
        assert copy.partition == partition_for(copy.key, PLAYER_PARTITIONS)
        assert records.provenance_problem(SPIN_JACKPOT_ANSWERS, copy.headers, copy.value, copy.key) is None
        proof = records.forwarded_proof(copy)
        if isinstance(answer.data, jp.JackpotWon):
            assert dict(copy.headers)[records.JACKPOT_PROOF] == records.proof_header(original)[1]
            assert proof is not None and records.proof_problem(proof) is None
        else:
            assert proof is None
    assert any(isinstance(decode(copy.value).data, jp.JackpotWon) for copy in forwarded), "a claim was won"


def test_a_lagging_spins_claim_is_paid_and_its_contribution_applied(
    deployment, kafka_bootstrap, make_producer, eventually
):
    # Scenario: a claim and a contribution dated two hours back, as a spin that lagged that long behind its input
    # dates them: a claim refused by age would leave its spin settled with 0 from the pool, and a contribution refused
    # by age the pool short of what the wallet moved into the liability. No saga is left open: both are applied.
    prefix, env, log_dir = deployment
    contribution, claim = _contribution("p-late"), _claim("p-late")
    _produce(make_producer, prefix + JACKPOT_COMMANDS, [contribution, claim], datetime.now(timezone.utc) - LAG)

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
