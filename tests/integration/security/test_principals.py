"""The trust boundary through the real broker with real principals (runs where the broker is the secured one:
`reelstream infra up --secure`; on a plaintext broker there are no principals to test, and under CI=true that fails).

A game client may put spin requests on the broker and nothing else on the money path; no role but break-glass admin
may change an event topic's retention or delete its records; a wrong password and an untrusted CA each end in one line.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from kafka.errors import KafkaError, TopicAuthorizationFailedError

from deploy.local.pki import ensure_tls
from shared.events import encode, envelope
from shared.events.jackpot import Contribute
from shared.events.wallet import DebitWager, SettleWager
from shared.kafka import admin_client, producer
from shared.roles import ADMIN, BREAK_GLASS, ROLE_NAMES
from shared.security import diagnose, parse, security_for
from shared.topics import JACKPOT_COMMANDS, JACKPOT_INTERNAL, SPIN_JACKPOT_ANSWERS, SPIN_REQUESTS, WALLET_COMMANDS
from shared.topics import SEAMLESS_SAGA, WALLET_EVENTS, WALLET_INTERNAL, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS
from tests.support.principals import read_refused

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "topic", [WALLET_COMMANDS, SPIN_JACKPOT_ANSWERS, WALLET_EVENTS, JACKPOT_COMMANDS, WALLET_INTERNAL, JACKPOT_INTERNAL]
)
def test_a_game_client_is_refused_on_every_money_path_topic(secured, deployment, topic):
    client = producer(secured, role="game-client", max_block_ms=10_000)
    try:
        with pytest.raises(TopicAuthorizationFailedError):
            client.send(deployment + topic, key=b"p-1", value=b'{"mint": 1000000000000}').get(timeout=15)
    finally:
        client.close(timeout=5)


def _internal_attacks() -> list:
    """A2's debit and settlement, A3's contribution (A6 is a settlement too), as the signed-replay tests write them."""
    wager, now = uuid.uuid4(), datetime.now(timezone.utc)
    commands = [
        DebitWager(transaction_id=wager, player_id="p-1", amount_minor=1000, currency="EUR", game="rising-joker"),
        SettleWager(
            transaction_id=uuid.uuid4(),
            player_id="p-1",
            wager_id=wager,
            currency="EUR",
            house_win_minor=10**12,
            jackpot_win_minor=0,
            breakage_micro=0,
            contribution_micro=0,
            network_id="diamond-mystery",
        ),
        Contribute(
            network_id="diamond-mystery",
            contribution_id=wager,
            game="rising-joker",
            currency="EUR",
            stake_minor=10**12,
            contribution_micro=10**16,
            player_id="p-1",
        ),
    ]
    return [
        (data.TOPIC, data.subject.encode(), encode(envelope(data, source="attacker", time=now))) for data in commands
    ]


@pytest.mark.parametrize("role", ["cashier", "operator", "ops", "wallet", "jackpot", "projector", SEAMLESS_SAGA])
def test_only_the_spin_service_may_write_the_internal_command_topics(secured, every_role, deployment, role):
    """A2, A3 and A6 by the cashier (or any principal but the spin's) now fail at the broker."""
    attacks = _internal_attacks()
    assert {topic for topic, _, _ in attacks} == {WALLET_INTERNAL, JACKPOT_INTERNAL}
    client = producer(secured, role=role, max_block_ms=10_000)
    try:
        for topic, key, value in attacks:
            with pytest.raises(TopicAuthorizationFailedError):
                client.send(deployment + topic, key=key, value=value).get(timeout=15)
    finally:
        client.close(timeout=5)
    spin = producer(secured, role="spin")
    try:
        for topic, key, value in attacks:  # the broker lets the spin in; its consumers check the spin's signature
            assert spin.send(deployment + topic, key=key, value=value).get(timeout=15).offset >= 0
    finally:
        spin.close(timeout=5)


def test_only_the_jackpot_writes_the_claims_answers_on_the_players_partitions(secured, deployment):
    """spin.jackpot-answers is the jackpot's (its answers, copied in its transactions): the spin only reads it."""
    spin, jackpot = producer(secured, role="spin", max_block_ms=10_000), producer(secured, role="jackpot")
    try:
        with pytest.raises(TopicAuthorizationFailedError):
            spin.send(deployment + SPIN_JACKPOT_ANSWERS, key=b"p-1", value=b"{}").get(timeout=15)
        assert jackpot.send(deployment + SPIN_JACKPOT_ANSWERS, key=b"p-1", value=b"{}").get(timeout=15).offset >= 0
    finally:
        spin.close(timeout=5)
        jackpot.close(timeout=5)


def test_the_seamless_sagas_principal_reads_and_writes_its_own_topics_alone(secured, every_role, deployment):
    """Its loop's inputs and its record readable, its record and call outcomes writable; the money path's other
    topics neither (the spin's requests unread, the ledger's events unwritten)."""
    assert not read_refused(secured, SEAMLESS_SAGA, deployment + WALLET_INTERNAL)
    assert not read_refused(secured, SEAMLESS_SAGA, deployment + WALLET_SEAMLESS)
    assert read_refused(secured, SEAMLESS_SAGA, deployment + SPIN_REQUESTS)
    assert read_refused(secured, SEAMLESS_SAGA, deployment + WALLET_EVENTS)
    client = producer(secured, role=SEAMLESS_SAGA, max_block_ms=10_000)
    try:
        for topic in (WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS):
            assert client.send(deployment + topic, key=b"p-1", value=b"{}").get(timeout=15).offset >= 0
        for topic in (WALLET_EVENTS, WALLET_COMMANDS):
            with pytest.raises(TopicAuthorizationFailedError):
                client.send(deployment + topic, key=b"p-1", value=b"{}").get(timeout=15)
    finally:
        client.close(timeout=5)


def test_the_wallets_principal_neither_writes_nor_reads_the_sagas_topics(secured, deployment):
    """A compromised wallet cannot put a record where only the saga writes, nor read the saga's record."""
    client = producer(secured, role="wallet", max_block_ms=10_000)
    try:
        for topic in (WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS):
            with pytest.raises(TopicAuthorizationFailedError):
                client.send(deployment + topic, key=b"p-1", value=b"{}").get(timeout=15)
    finally:
        client.close(timeout=5)
    assert read_refused(secured, "wallet", deployment + WALLET_SEAMLESS)
    assert read_refused(secured, "wallet", deployment + WALLET_SEAMLESS_CALLS)
    assert not read_refused(secured, "wallet", deployment + WALLET_INTERNAL)


def test_a_game_client_may_put_a_spin_request(secured, deployment):
    client = producer(secured, role="game-client")
    try:
        assert client.send(deployment + SPIN_REQUESTS, key=b"p-1", value=b"{}").get(timeout=15).offset == 0
    finally:
        client.close(timeout=5)


def _retention_change_and_record_deletion(bootstrap: str, role: str, topic: str) -> tuple[bool, bool]:
    """(config change refused, DeleteRecords refused) for `role` on `topic`."""
    from kafka import TopicPartition
    from kafka.admin import ConfigResource, ConfigResourceType

    admin = admin_client(bootstrap, role=role)
    try:
        change = ConfigResource(ConfigResourceType.TOPIC, topic, {"retention.ms": "1000"})
        outcome = admin.alter_configs([change], raise_on_unknown=False)["topic"][topic]
        config_refused = outcome != "OK"
        try:
            admin.delete_records({TopicPartition(topic, 0): 0})
            delete_refused = False
        except KafkaError:
            delete_refused = True
        return config_refused, delete_refused
    finally:
        admin.close()


def test_no_role_but_break_glass_may_change_retention_or_delete_records_on_an_event_topic(
    secured, every_role, deployment, break_glass
):
    """On a test deployment's topics admin keeps both (it deletes the deployment); on the live ones see
    test_evidence.py, where admin is refused too."""
    topic = deployment + WALLET_EVENTS
    for role in ROLE_NAMES:
        refused = _retention_change_and_record_deletion(secured, role, topic)
        assert refused == ((False, False) if role in (BREAK_GLASS, ADMIN) else (True, True)), role


def _role_settings(role: str) -> dict:
    values = json.loads((Path(os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"]) / f"{role}.json").read_text())
    values.pop("role")
    values.pop("bootstrap_servers")
    return values


def test_a_wrong_password_gives_one_clear_line(secured):
    wrong = parse({**_role_settings("cashier"), "sasl_password": "not-the-password"}, source="cashier.json")
    reason = diagnose(secured, wrong)
    assert reason is not None and reason.startswith("kafka: authentication failed for user 'cashier'")
    assert "not-the-password" not in reason
    assert diagnose(secured, security_for("cashier")) is None


def test_an_untrusted_ca_gives_one_clear_line(secured, tmp_path):
    stranger = ensure_tls(tmp_path / "tls")
    untrusted = parse({**_role_settings("cashier"), "ssl_ca_file": str(stranger.ca_cert)}, source="cashier.json")
    reason = diagnose(secured, untrusted)
    assert reason is not None and "is not trusted by the CA file" in reason
