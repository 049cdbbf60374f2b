"""The internal-command topics: wallet.internal and jackpot.internal carry the spin service's commands only, the
broker's rules give nobody else WRITE there, the record module refuses a command on the other kind of topic
(WRONG_TOPIC; the old public topics still take the internal types during the migration release), the wallet and the
jackpot dead-letter to the DLQ of the topic a record came from, the spin routes its commands there, and a re-drive
never writes them."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

import orjson
import pytest

from ops.rules import refusal_of_redrive, refusal_of_redrive_letter
from tests.support.reads import jackpot_dead_letter as dead_letter_record
from tests.support.reads import to_incoming
from tests.support.spin import outputs_of
from tests.support.reads import handle
from services.wallet.core.book import WalletBook
from shared import records
from shared.dead_letters import origin_of
from shared.decision import Decision
from shared.events import encode, envelope
from shared.events.envelope import epoch_ms
from shared.events.jackpot import Claim, Contribute, DisablePool, OpenPool
from shared.events.wallet import DebitWager, Deposit, PlaceWager, RefundWager, SettleWager, Withdraw
from shared.roles import ROLES, acl_rules
from shared.topics import (
    ALL_TOPICS,
    JACKPOT_COMMANDS,
    JACKPOT_INTERNAL,
    WALLET_COMMANDS,
    WALLET_INTERNAL,
    dlq_name,
    spec,
)

PLAYER = "p-1"
NETWORK = "diamond-mystery"
T0 = datetime(2026, 12, 2, 2, 0, tzinfo=timezone.utc)
T0_MS = epoch_ms(T0)


def _debit() -> DebitWager:
    return DebitWager(transaction_id=uuid.uuid4(), player_id=PLAYER, amount_minor=100, currency="EUR", game="g")


def _deposit() -> Deposit:
    return Deposit(transaction_id=uuid.uuid4(), player_id=PLAYER, amount_minor=100, currency="EUR")


def _contribute() -> Contribute:
    return Contribute(
        network_id=NETWORK,
        contribution_id=uuid.uuid4(),
        game="rising-joker",
        currency="EUR",
        stake_minor=100,
        contribution_micro=1,
        player_id=PLAYER,
    )


def _disable() -> DisablePool:
    return DisablePool(network_id=NETWORK, command_id=uuid.uuid4(), pool_id="dm-diamond", reason="test")


def _value(data) -> bytes:
    return encode(envelope(data, source="test", time=T0))


def test_the_internal_topics_are_the_spin_services_alone_and_co_partitioned_with_the_public_ones():
    # The seamless saga decides a seamless operator's wagers off wallet.internal beside the ledger wallet.
    for internal, public, deciders in (
        (WALLET_INTERNAL, WALLET_COMMANDS, ("wallet", "seamless-saga")),
        (JACKPOT_INTERNAL, JACKPOT_COMMANDS, ("jackpot",)),
    ):
        topic = spec(internal)
        assert (topic.kind, topic.key, topic.partitions) == ("command", spec(public).key, spec(public).partitions)
        assert topic.writers == ("spin",) and not topic.public
        assert topic.readers == deciders + ("auditor", "ops")
        assert topic.configs == spec(public).configs  # retention and broker time of the commands
        assert spec(dlq_name(internal)).writers == deciders
        assert records.OWNERS[internal] == "spin"
        assert internal in records.COMMAND_TOPICS  # the audit reads them for the signature check


def test_no_role_but_the_spin_service_may_write_an_internal_topic():
    writers = {
        role.name
        for role in ROLES
        for rule in acl_rules(role)
        if rule.operation in ("WRITE", "ALL")
        and rule.permission == "ALLOW"
        and rule.resource == "TOPIC"
        and (rule.name in (WALLET_INTERNAL, JACKPOT_INTERNAL) or rule.name == "*")
    }
    assert writers == {"spin", "admin"}  # admin: ALL on every topic (provisioning, never a service)
    cashier = next(role for role in ROLES if role.name == "cashier")
    assert not [r for r in acl_rules(cashier) if r.name in (WALLET_INTERNAL, JACKPOT_INTERNAL)]


def test_each_command_names_its_topic():
    for command in (DebitWager, PlaceWager, SettleWager, RefundWager):
        assert command.TOPIC == WALLET_INTERNAL
    for command in (Contribute, Claim):
        assert command.TOPIC == JACKPOT_INTERNAL
    assert Deposit.TOPIC == Withdraw.TOPIC == WALLET_COMMANDS
    assert OpenPool.TOPIC == DisablePool.TOPIC == JACKPOT_COMMANDS


@pytest.mark.parametrize(
    ("topic", "make"),
    [
        (WALLET_INTERNAL, _deposit),
        (JACKPOT_INTERNAL, _disable),
        (WALLET_INTERNAL, _contribute),
        (JACKPOT_INTERNAL, _debit),
    ],
)
def test_a_public_or_another_services_command_on_an_internal_topic_is_the_wrong_topic(topic, make):
    data = make()
    with pytest.raises(records.Misfit) as refused:
        records.decode_on(topic, _value(data), data.subject.encode(), keyless=True)
    assert refused.value.code == records.WRONG_TOPIC


@pytest.mark.parametrize(("topic", "make"), [(WALLET_COMMANDS, _debit), (JACKPOT_COMMANDS, _contribute)])
def test_an_internal_command_on_its_old_topic_is_accepted_in_the_migration_and_refused_after_the_switch_off(
    topic, make
):
    data = make()
    assert records.decode_on(topic, _value(data), data.subject.encode()).data == data
    with pytest.raises(records.Misfit) as refused:
        records.decode_on(topic, _value(data), data.subject.encode(), moved={})
    assert refused.value.code == records.WRONG_TOPIC
    # Either way only with the spin service as its writer (and, with a key ring, its signature).
    assert records.provenance_problem(topic, records.headers_for("cashier"), _value(data), data.subject.encode())


def test_another_services_internal_command_on_the_old_public_topic_is_the_wrong_topic():
    data = _contribute()
    with pytest.raises(records.Misfit) as refused:
        records.decode_on(WALLET_COMMANDS, _value(data), data.subject.encode(), keyless=True)
    assert refused.value.code == records.WRONG_TOPIC


def test_a_record_on_an_internal_topic_not_written_by_the_spin_service_is_untrusted_whatever_its_type():
    for data in (_debit(), _deposit()):
        problem = records.provenance_problem(
            WALLET_INTERNAL, records.headers_for("cashier"), _value(data), data.subject.encode()
        )
        assert problem == "written by 'cashier', only 'spin' writes this"
    assert records.trusted_writer(WALLET_INTERNAL, _value(_deposit())) == "spin"


def _wallet(data, topic: str, writer: str) -> list:
    value = _value(data)
    headers = records.headers_for(writer)
    return handle(WalletBook(0), data.subject.encode(), value, T0_MS, (topic, 0, 7), headers)


def test_the_wallet_refuses_a_public_command_on_wallet_internal_and_dead_letters_to_wallet_internal_dlq():
    (wrong,) = _wallet(_deposit(), "x.wallet.internal", "spin")  # readable: the player's rejection (INVALID_REQUEST)
    rejected = orjson.loads(wrong.value)["data"]
    assert not wrong.dead_letter and rejected["code"] == "INVALID_REQUEST"
    assert "does not belong on wallet.internal" in rejected["message"]
    (untrusted,) = _wallet(_debit(), "x.wallet.internal", "cashier")
    assert untrusted.dead_letter and untrusted.topic == "x.wallet.internal.dlq"
    assert origin_of(untrusted.headers).code == records.UNTRUSTED_WRITER
    (junk,) = handle(WalletBook(0), None, b"{", T0_MS, ("x.wallet.internal", 0, 8), records.headers_for("spin"))
    assert junk.dead_letter and junk.topic == "x.wallet.internal.dlq"
    (public,) = _wallet(_debit(), "x.wallet.commands", "cashier")
    assert public.dead_letter and public.topic is None  # the loop's DLQ: wallet.commands.dlq


def test_the_wallet_applies_a_spin_command_from_wallet_internal():
    book = WalletBook(0)
    deposit = _deposit()
    handle(book, PLAYER.encode(), _value(deposit), T0_MS, ("x.wallet.commands", 0, 0), records.headers_for("cashier"))
    debit = _debit()
    (debited,) = handle(
        book,
        PLAYER.encode(),
        _value(debit),
        T0_MS,
        ("x.wallet.internal", 0, 0),
        records.headers_for("spin"),
    )
    assert not debited.dead_letter and orjson.loads(debited.value)["type"] == "reelstream.wallet.wager-debited.v1"
    assert book.players[PLAYER].balances_minor == {"EUR": 0}


def _record(topic: str, data, writer: str):
    value = _value(data)
    return SimpleNamespace(
        topic=topic,
        partition=0,
        offset=3,
        key=data.subject.encode(),
        value=value,
        headers=records.headers_for(writer),
        timestamp=T0_MS,
    )


def test_the_jackpot_reads_both_topics_and_dead_letters_to_the_records_own_topic():
    assert not isinstance(to_incoming(_record("x.jackpot.internal", _contribute(), "spin")), tuple)
    assert not isinstance(to_incoming(_record("x.jackpot.commands", _disable(), "operator")), tuple)
    wrong = _record("x.jackpot.internal", _disable(), "spin")
    assert to_incoming(wrong)[0] == records.WRONG_TOPIC
    assert to_incoming(_record("x.jackpot.internal", _contribute(), "operator"))[0] == records.UNTRUSTED_WRITER
    assert dead_letter_record(wrong, *to_incoming(wrong)).topic == "x.jackpot.internal.dlq"
    public = _record("x.jackpot.commands", _contribute(), "operator")
    assert dead_letter_record(public, *to_incoming(public)).topic is None  # the loop's: jackpot.commands.dlq


def test_the_spin_sends_its_commands_to_the_internal_topics():
    commands = (envelope(_debit(), source="spin", time=T0), envelope(_contribute(), source="spin", time=T0))
    effects = outputs_of(Decision(commands=commands))
    assert [out.topic for out in effects.outputs] == [WALLET_INTERNAL, JACKPOT_INTERNAL]


def test_a_re_drive_never_writes_an_internal_topic_nor_an_internal_command():
    assert "internal topic" in refusal_of_redrive(dlq_name(WALLET_INTERNAL))
    assert "internal topic" in refusal_of_redrive(dlq_name(JACKPOT_INTERNAL))
    assert "ops never writes there" in refusal_of_redrive_letter("x.wallet.internal", _value(_deposit()))
    assert "ops never writes there" in refusal_of_redrive_letter("x.jackpot.internal", _value(_contribute()))
    assert "internal command" in refusal_of_redrive_letter("x.wallet.commands", _value(_debit()))
    assert "internal command" in refusal_of_redrive_letter("x.jackpot.commands", _value(_contribute()))
    assert refusal_of_redrive_letter("x.wallet.commands", _value(_deposit())) is None
    assert refusal_of_redrive_letter("x.spin.requests", b"not json") is None
    for topic in ALL_TOPICS:  # what ops may write is what a re-drive may target
        allowed = refusal_of_redrive_letter("x." + topic.name, b"{}") is None
        assert allowed == ("ops" in topic.writers and topic.kind != "dlq"), topic.name
