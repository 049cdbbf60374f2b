"""The jackpot service on the real broker, killed at its dangerous points and restarted.

Scenario: 3,000 Stjernestøv contributions (every tenth sent twice), 12 claims in between (two of them repeated),
two admin commands and one undecodable record are on jackpot.commands. The service dies mid-transaction in its
second batch, then right after committing another, and finally runs clean. Afterwards every contribution is counted
once, no claim is paid twice, every pool event balances and chains from the previous closing, the live meters show
the final levels, the broken record is in the dead-letter topic, and no event was emitted twice except the answers
to the repeated claim (each restart resumed at the input position its committed events recorded); each answer record
has its one copy on spin.jackpot-answers.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from datetime import datetime, timezone

import pytest

from reelstream.processes import spawn
from shared import dead_letters, records
from shared.events import decode, decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.pools import load_pools
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS, SPIN_JACKPOT_ANSWERS, dlq_name

from services.jackpot.adapters.history import fold_events, read_all

STJERNE = load_pools().network("stjernestoev")
CONTRIBUTIONS = 3000
CLAIM_EVERY = 250


def _commands() -> tuple[list[jp.Contribute], list[jp.Claim], list]:
    contributions, claims, sequence = [], [], []
    for index in range(CONTRIBUTIONS):
        stake_minor = (50, 1000, 10_000)[index % 3]
        contribution = jp.Contribute(
            network_id=STJERNE.network_id,
            contribution_id=uuid.uuid4(),
            game="stjernestoev",
            currency="DKK",
            stake_minor=stake_minor,
            contribution_micro=STJERNE.wager_contribution_micro(stake_minor),
            player_id=f"p-{index % 17}",
            operator_id=("op-a", "op-b")[index % 2],
        )
        contributions.append(contribution)
        sequence.append(contribution)
        if index % 10 == 9:
            sequence.append(contributions[index - 5])  # an at-least-once repeat
        if index % CLAIM_EVERY == CLAIM_EVERY - 1:
            claim = jp.Claim(
                network_id=STJERNE.network_id,
                claim_id=uuid.uuid4(),
                request_id=uuid.uuid4(),
                player_id=f"p-{index % 17}",
                game="stjernestoev",
                tier=("jackpot", "supernova")[len(claims) % 2],
                currency="DKK",
                stake_minor=stake_minor,
            )
            claims.append(claim)
            sequence.append(claim)
            if len(claims) in (3, 8):
                sequence.append(claims[0])
    sequence.insert(
        1500, jp.DisablePool(network_id=STJERNE.network_id, command_id=uuid.uuid4(), pool_id="sn-supernova")
    )
    sequence.insert(2200, jp.ResumePool(network_id=STJERNE.network_id, command_id=uuid.uuid4(), pool_id="sn-supernova"))
    return contributions, claims, sequence


@pytest.fixture
def deployment(kafka_bootstrap: str, tmp_path):
    prefix = f"t-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "REELSTREAM_JACKPOT_BATCH_MAX": "300",
    }
    yield prefix, env, tmp_path
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def _produce(make_producer, topic: str, sequence: list) -> None:
    writer = make_producer()
    now = datetime.now(timezone.utc)
    for index, data in enumerate(sequence):
        if index == 700:
            writer.send(topic, key=STJERNE.network_id.encode(), value=b'{"not": "a command"')
        message = envelope(data, source="test", time=now)
        value = encode(message)  # stands in for the spin service
        headers = records.headers_as_owner("jackpot.commands", "spin", message.key, value)
        writer.send(topic, key=message.key, value=value, headers=headers)
    writer.flush(timeout=30)


def _run(name_env: dict, log_dir, crash_at: str | None, expect_crash: bool):
    env = dict(name_env)
    if crash_at:
        env["REELSTREAM_CRASH_AT"] = crash_at
    service = spawn("jackpot", env=env, log_dir=log_dir)
    if expect_crash:
        try:
            assert service.wait_exit(90) == 137, service.log_text()[-3000:]
        finally:
            service.kill()
    else:
        service.wait_ready(60)
    return service


def test_every_contribution_counts_once_and_no_claim_is_paid_twice_across_crashes(
    deployment, kafka_bootstrap, make_producer, eventually
):
    prefix, env, log_dir = deployment
    contributions, claims, sequence = _commands()
    _produce(make_producer, prefix + JACKPOT_COMMANDS, sequence)

    _run(env, log_dir, "jackpot.mid_transaction:2", expect_crash=True)
    _run(env, log_dir, "jackpot.after_commit:2", expect_crash=True)
    service = _run(env, log_dir, None, expect_crash=False)
    try:

        def answered():
            events = [e for r in read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS) for e in decode_all(r.value)]
            answers = {e.data.claim_id for e in events if isinstance(e.data, (jp.JackpotWon, jp.ClaimRejected))}
            applied = sum(
                len(e.data.contributions)
                for e in {e.id: e for e in events}.values()
                if isinstance(e.data, jp.ContributionsApplied)
            )
            return events if len(answers) == len(claims) and applied >= CONTRIBUTIONS else None

        events = eventually(answered, 90, 0.5)
        _check_events(events, contributions, claims)
        _check_fold_and_meters(kafka_bootstrap, prefix, eventually)
        _check_nothing_re_emitted(read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS), claims[0])
        _check_answers_copied(kafka_bootstrap, prefix)
        dead = read_all(kafka_bootstrap, prefix + dlq_name(JACKPOT_COMMANDS))
        assert [dict(r.headers)[dead_letters.CODE] for r in dead] == [b"UNDECODABLE"]
    finally:
        service.stop()
    assert "crash hook jackpot.mid_transaction fired" in service.log_text()


def _check_events(events, contributions, claims) -> None:
    distinct = list({event.id: event for event in events}.values())
    applied = Counter(
        c.contribution_id for e in distinct if isinstance(e.data, jp.ContributionsApplied) for c in e.data.contributions
    )
    assert set(applied) == {c.contribution_id for c in contributions}
    assert max(applied.values()) == 1
    wins = defaultdict(set)
    for event in events:
        if isinstance(event.data, (jp.JackpotWon, jp.ClaimRejected)):
            wins[event.data.claim_id].add(event.id)
    assert all(len(ids) == 1 for ids in wins.values()), "a claim got two different answers"
    assert set(wins) == {claim.claim_id for claim in claims}
    closing = {}
    for event in distinct:
        for movement in _movements(event.data):
            assert movement.balanced(), movement
            assert closing.get(movement.pool_id, 0) == movement.opening_micro, "pool events must chain"
            closing[movement.pool_id] = movement.closing_micro
    rejected = [e.data for e in distinct if isinstance(e.data, jp.ClaimRejected)]
    assert {r.code for r in rejected} <= {"POOL_DISABLED"}


def _check_nothing_re_emitted(records, repeated_claim) -> None:
    """Each event once, but the answers to the claim sent three times, three times. Without the seek to the position
    recorded in the events, a restart re-reads jackpot.commands from the group's offset (committed only every few
    seconds) and re-emits the answers to claims it had already answered (contributions re-count nothing, so the
    state checks above cannot see it)."""
    events = [event for record in records for event in decode_all(record.value)]  # batch envelopes unpacked
    occurrences = Counter(event.id for event in events)
    answers = {event.id for event in events if repeated_claim.claim_id in _claim_ids(event.data)}
    assert answers, "the repeated claim was answered"
    expected = {event_id: 3 if event_id in answers else 1 for event_id in occurrences}
    extra = sum(occurrences.values()) - sum(expected.values())
    assert occurrences == expected, f"{extra} events re-emitted after restarts"


def _check_answers_copied(kafka_bootstrap: str, prefix: str) -> None:
    """Every answer record on jackpot.events (the repeated claim's three included) has its one copy on
    spin.jackpot-answers, across the crashes: the two are written in one transaction."""
    answers = [
        record.value
        for record in read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS)
        if any(isinstance(event.data, (jp.JackpotWon, jp.ClaimRejected)) for event in decode_all(record.value))
    ]
    copies = read_all(kafka_bootstrap, prefix + SPIN_JACKPOT_ANSWERS)
    assert Counter(record.value for record in copies) == Counter(answers)
    assert all(record.key == decode(record.value).data.player_id.encode() for record in copies)


def _claim_ids(data) -> set:
    return {getattr(data, "claim_id", None), getattr(data, "cause_claim_id", None)}


def _movements(data):
    yield from getattr(data, "movements", ())
    if getattr(data, "movement", None) is not None:
        yield data.movement


def _check_fold_and_meters(kafka_bootstrap: str, prefix: str, eventually) -> None:
    state = fold_events(read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS))[STJERNE.network_id]
    expected = {pool_id: pool.level_micro // MICRO_PER_MINOR for pool_id, pool in state.pools.items()}

    def meters_caught_up():
        latest = {}
        for record in read_all(kafka_bootstrap, prefix + JACKPOT_METERS):
            meter = decode(record.value).data
            latest[meter.pool_id] = meter.level_minor
        return latest if latest == expected else None

    eventually(meters_caught_up, 15, 0.5)
