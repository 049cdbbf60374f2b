"""Records nobody trusted wrote, and records that are not even JSON objects, on every topic a service consumes.

Scenario: a player deposits and spins once. Then an attacker with a plain producer writes, onto every input topic of
the wallet, jackpot and spin services, a JSON array, a number, a string and `null`; a forged `Deposited` straight onto
wallet.events (A7); an internal `DebitWager` + `SettleWager` pair with a huge house win that the spin service never
sent (A2); a `Contribute` with a huge stake (A3). Every service keeps answering, a restart of each restores without
folding any of it, the balance and the pools are what the honest traffic made them, and the command topics' dead
letters name the code, the reason and the origin of every refused record.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from reelstream.client import Rejected, Settled
from shared import records
from shared.dead_letters import origin_of
from shared.events import decode_all, encode, envelope
from shared.events.jackpot import ContributionsApplied, Contribute
from shared.events.spin import SpinRequested
from shared.events.wallet import CASHIER, DebitWager, Deposited, Posting, SettleWager, WagerSettled, player_account
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR

from conftest import client_for, token_for

NOT_OBJECTS = (b"[1, 2, 3]", b"42", b'"a string"', b"null")
INPUT_TOPICS = (
    "spin.requests",
    "wallet.commands",
    "jackpot.commands",
    "wallet.internal",
    "jackpot.internal",
    "wallet.events",
    "jackpot.events",
    "spin.jackpot-answers",
)
PLAYER = "poison-1"
HUGE_MINOR = 10**12


def _forgeries(now: datetime) -> list[tuple[str, bytes, bytes]]:
    """(topic, key, value) of the attacks, each written without the trusted writer's id."""
    wager = uuid.uuid4()
    deposited = Deposited(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        recorded_at=now,
        currency="EUR",
        amount_minor=5 * HUGE_MINOR,
        balance_after_minor=5 * HUGE_MINOR,
        postings=(
            Posting(account=CASHIER, amount_micro=-5 * HUGE_MINOR * MICRO_PER_MINOR),
            Posting(account=player_account(PLAYER), amount_micro=5 * HUGE_MINOR * MICRO_PER_MINOR),
        ),
        command_fingerprint="forged",
    )
    debit = DebitWager(transaction_id=wager, player_id=PLAYER, amount_minor=100, currency="EUR", game="rising-joker")
    settle = SettleWager(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        wager_id=wager,
        currency="EUR",
        house_win_minor=HUGE_MINOR,
        jackpot_win_minor=0,
        breakage_micro=0,
        contribution_micro=0,
        network_id="diamond-mystery",
    )
    contribute = Contribute(
        network_id="diamond-mystery",
        contribution_id=uuid.uuid4(),
        game="rising-joker",
        currency="EUR",
        stake_minor=HUGE_MINOR,
        contribution_micro=HUGE_MINOR * MICRO_PER_MINOR,
        breakage_micro=0,
        player_id=PLAYER,
    )
    made = []
    for topic, data in (
        ("wallet.events", deposited),
        ("wallet.commands", debit),
        ("wallet.commands", settle),
        ("jackpot.commands", contribute),
        ("wallet.internal", debit),
        ("wallet.internal", settle),
        ("jackpot.internal", contribute),
    ):
        message = envelope(data, source="attacker", time=now)
        made.append((topic, message.key, encode(message)))
    return made


@pytest.fixture(scope="module")
def platform(platform_factory):
    return platform_factory()


def test_nothing_untrusted_or_malformed_is_applied_folded_or_fatal(platform):
    with client_for(platform) as client:
        client.deposit(PLAYER, 10_000, "EUR")
        before = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER))
        assert isinstance(before, Settled)
        attacker = producer(platform.bootstrap, client_id="attacker")
        for topic in INPUT_TOPICS:
            for value in NOT_OBJECTS:
                attacker.send(
                    platform.topic(topic), key=PLAYER.encode(), value=value, headers=records.headers_for("attacker")
                )
        for topic, key, value in _forgeries(datetime.now(timezone.utc)):
            attacker.send(platform.topic(topic), key=key, value=value)
        attacker.flush(30)
        attacker.close(10)

        after_attack = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER))
        assert isinstance(after_attack, Settled), "the services keep answering"
        assert after_attack.balance_after_minor == before.balance_after_minor - 100 + after_attack.win_minor

        platform.restart("wallet", "jackpot", "spin")  # a restore that met the forgeries

        last = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER), timeout_s=60)
        assert isinstance(last, Settled)
        assert last.balance_after_minor == after_attack.balance_after_minor - 100 + last.win_minor

    settlements = [e.data for e in _decodable(platform, "wallet.events") if isinstance(e.data, WagerSettled)]
    assert len({s.wager_id for s in settlements}) == 3, "one settlement per spin (a redelivered copy may repeat it)"
    assert max(s.house_win_minor for s in settlements) < HUGE_MINOR, "the forged settlement was never applied"
    applied = [e.data for e in _decodable(platform, "jackpot.events") if isinstance(e.data, ContributionsApplied)]
    assert max(c.stake_minor for event in applied for c in event.contributions) == 100, "the forged stake never counted"


def _decodable(platform, topic: str) -> list:
    """The topic's records that the platform wrote (the attacker's junk is on the event topics too)."""
    return [
        event
        for r in platform.read_raw(topic)
        if records.provenance_problem(topic, r.headers, r.value, r.key) is None
        for event in decode_all(r.value)
    ]


def test_the_command_topics_dead_letters_name_code_reason_origin_and_consumer(platform):
    expected = {
        "wallet.commands": ("wallet", {"UNDECODABLE", "UNTRUSTED_WRITER"}),
        "jackpot.commands": ("jackpot", {"UNDECODABLE", "UNTRUSTED_WRITER"}),
        "spin.requests": ("spin", {"UNDECODABLE"}),
        # Only the spin service writes these: whatever else is there is untrusted before it is read.
        "wallet.internal": ("wallet", {"UNTRUSTED_WRITER"}),
        "jackpot.internal": ("jackpot", {"UNTRUSTED_WRITER"}),
    }
    for topic, (consumer, codes) in expected.items():
        letters = platform.read_raw(f"{topic}.dlq")
        origins = [origin_of(list(record.headers)) for record in letters]
        assert origins and all(origin is not None for origin in origins), topic
        assert {origin.code for origin in origins} == codes, topic
        assert {origin.consumer for origin in origins} == {consumer}, topic
        assert all(origin.reason for origin in origins), topic
        assert {origin.topic for origin in origins} == {platform.topic(topic)}, topic
        assert {record.value for record in letters} >= set(NOT_OBJECTS), topic


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_a_request_in_a_compressed_batch_is_answered_whatever_the_codec(platform, codec):
    """franz-go compresses with snappy by default; a batch the platform cannot decompress stopped the spin service."""
    player = f"codec-{codec}"
    with client_for(platform) as client:
        client.deposit(player, 1_000, "EUR")
        request_id = uuid.uuid4()
        message = envelope(
            SpinRequested(
                request_id=request_id,
                player_id=player,
                game="rising-joker",
                stake_minor=10,
                currency="EUR",
                session_token=token_for(player),
            ),
            source="codec-test",
            time=datetime.now(timezone.utc),
        )
        writer = producer(platform.bootstrap, client_id=f"codec-{codec}", compression_type=codec)
        writer.send(platform.topic("spin.requests"), key=player.encode(), value=encode(message)).get(timeout=30)
        writer.close(10)
        answer = client.spin(player, "rising-joker", 10, "EUR", token_for(player), request_id=request_id, timeout_s=60)
        assert isinstance(answer, Settled)


# An empty or over-long token is refused by the model before the SDK sends it; the fuzzer sends such records raw.
@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("v1.cA.9999999999999.été", "UNAUTHENTICATED"),
        ("\x00" * 40, "UNAUTHENTICATED"),
        ("v1." + "é" * 2000, "UNAUTHENTICATED"),
    ],
)
def test_a_request_with_a_non_ascii_empty_or_huge_token_is_refused_and_the_service_goes_on(platform, token, code):
    player = "token-poison"
    with client_for(platform) as client:
        client.deposit(player, 1_000, "EUR")
        answer = client.spin(player, "rising-joker", 10, "EUR", token, timeout_s=60)
        assert isinstance(answer, Rejected)
        assert answer.code == code
        assert isinstance(client.spin(player, "rising-joker", 10, "EUR", token_for(player), timeout_s=60), Settled)
