"""Each result of an operator's cashier command also on that operator's wallet.answers.<O>, through the wallet's own
path (its handler, the loop's signing and its `derived` hook): the operator is the one whose cashier key signed the
command, a command naming another is refused OPERATOR_MISMATCH, the plain cashier's key gets no copy, a repeat is
copied again byte for byte, and the audit's check takes an operator's cashier key as a cashier signature."""

from __future__ import annotations

import uuid
from datetime import timedelta

import orjson

from services.wallet.adapters.runner import WalletConfig, WalletService
from services.wallet.core.fingerprint import fingerprint
from shared import records, signing
from shared.events import decode, encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.events.wallet import DebitWager, Deposit, SelfExclude, SetLimit, Withdraw
from shared.loop import signed
from shared.operators import OPERATORS, cashier_role, wallet_answers_topic
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL
from tests.support.wallet import PLAYER, T0, tx
from tests.support.wallet_partition import WalletPartition

A, B = OPERATORS[:2]
T0_MS = epoch_ms(T0)
PREFIX = "t1."


def _service() -> WalletService:
    topic = lambda name: PREFIX + name  # noqa: E731
    config = WalletConfig(
        bootstrap="unused:9092",
        commands_topic=topic(WALLET_COMMANDS),
        events_topic=topic(WALLET_EVENTS),
        dlq_topic="dlq",
        group_id="g",
    )
    return WalletService(config)


def _value(data, at_ms: int = T0_MS) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.UUID(int=at_ms)))


def _through(
    book: WalletPartition,
    data,
    signer: str | None,
    *,
    at_ms: int = T0_MS,
    value: bytes | None = None,
    topic=WALLET_COMMANDS,
):
    """One command record signed by `signer` through the wallet: its signed outputs, then the copies the loop adds to
    the same transaction; as {logical topic: [Output]}."""
    value = value if value is not None else _value(data, at_ms)
    headers = records.signed_headers(signer, topic, PLAYER.encode(), value) if signer else []
    service = _service()
    outputs = book.run(value, at_ms, 0, PLAYER.encode(), topic=PREFIX + topic, headers=headers)
    sent = signed(service.config.loop(), outputs)
    sent += signed(service.config.loop(), service.derived(0, sent))
    found: dict[str, list] = {}
    for out in sent:
        name = "dlq" if out.dead_letter else (out.topic or PREFIX + WALLET_EVENTS).removeprefix(PREFIX)
        found.setdefault(name, []).append(out)
    return found


def _deposit(n: int, amount_minor: int = 500, **fields) -> Deposit:
    return Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR", **fields)


def _signer(headers, value: bytes) -> str | None:
    """Who signed a cashier command for the player, as the wallet's one provenance check finds it."""
    return records.provenance(WALLET_COMMANDS, headers, value, PLAYER.encode())[0]


def _data(out):
    return decode(out.value, expect_kind="event").data


def test_every_result_of_as_cashier_is_on_as_topic_too_byte_for_byte_signed_by_the_wallet(keys):
    book = WalletPartition()
    commands = [
        _deposit(1),
        Withdraw(transaction_id=tx(2), player_id=PLAYER, amount_minor=200, currency="EUR"),
        Withdraw(transaction_id=tx(3), player_id=PLAYER, amount_minor=10_000, currency="EUR"),  # refused
        SetLimit(transaction_id=tx(4), player_id=PLAYER, currency="EUR", kind="deposit", period="day", amount_minor=9),
        SelfExclude(transaction_id=tx(5), player_id=PLAYER),
    ]
    kinds = []
    for index, command in enumerate(commands):
        found = _through(book, command, cashier_role(A), at_ms=T0_MS + index)
        assert set(found) == {WALLET_EVENTS, wallet_answers_topic(A)}
        (kept,), (copy,) = found[WALLET_EVENTS], found[wallet_answers_topic(A)]
        assert copy.value == kept.value and copy.key == kept.key == PLAYER.encode()
        assert records.writer_of(copy.headers) == "wallet"
        assert records.provenance_problem(wallet_answers_topic(A), copy.headers, copy.value, copy.key) is None
        assert records.provenance_problem(WALLET_EVENTS, kept.headers, kept.value, kept.key) is None
        kinds.append(type(_data(copy)).__name__)
    assert kinds == ["Deposited", "Withdrawn", "CommandRejected", "LimitSet", "SelfExcluded"]
    assert book.book.players[PLAYER].balances_minor == {"EUR": 300}


def test_the_plain_cashier_key_binds_no_operator_its_results_are_on_wallet_events_alone(keys):
    book = WalletPartition()
    found = _through(book, _deposit(1), "cashier")
    assert set(found) == {WALLET_EVENTS} and type(_data(found[WALLET_EVENTS][0])).__name__ == "Deposited"


def test_a_deposit_naming_b_signed_with_as_key_is_refused_on_as_topic_only_and_moves_nothing(keys):
    book = WalletPartition()
    found = _through(book, _deposit(1, operator_id=B), cashier_role(A))
    assert set(found) == {WALLET_EVENTS, wallet_answers_topic(A)}
    refusal = _data(found[wallet_answers_topic(A)][0])
    assert refusal.code == "OPERATOR_MISMATCH" and B in refusal.message and A in refusal.message
    assert found[wallet_answers_topic(A)][0].value == found[WALLET_EVENTS][0].value
    assert PLAYER not in book.book.players or not book.book.players[PLAYER].balances_minor
    # The refusal does not own the id: A's own deposit with it, naming A, is accepted afterwards.
    again = _through(book, _deposit(1, operator_id=A), cashier_role(A), at_ms=T0_MS + 1)
    assert type(_data(again[wallet_answers_topic(A)][0])).__name__ == "Deposited"


def test_a_command_naming_an_operator_signed_with_the_plain_cashier_key_is_refused(keys):
    found = _through(WalletPartition(), _deposit(1, operator_id=A), "cashier")
    assert set(found) == {WALLET_EVENTS} and _data(found[WALLET_EVENTS][0]).code == "OPERATOR_MISMATCH"


def test_a_repeat_is_answered_again_on_the_operators_topic_with_the_same_bytes(keys):
    book = WalletPartition()
    value = _value(_deposit(1))
    first = _through(book, None, cashier_role(A), value=value)[wallet_answers_topic(A)][0]
    later = T0_MS + int(timedelta(seconds=5).total_seconds() * 1000)
    again = _through(book, None, cashier_role(A), value=value, at_ms=later)
    assert [out.value for out in again[wallet_answers_topic(A)]] == [first.value]
    assert book.reader.read == 1, "the copy is of the first record read back"
    assert book.book.players[PLAYER].balances_minor == {"EUR": 500}


def test_as_command_repeated_with_bs_key_is_refused_on_bs_topic_never_as_answer(keys):
    # A's deposit opened the account, so it is A's: B's repeat of it is refused as another operator's (before the id is
    # looked up: A's answer is never repeated to B).
    book = WalletPartition()
    value = _value(_deposit(1))
    _through(book, None, cashier_role(A), value=value)
    found = _through(book, None, cashier_role(B), value=value, at_ms=T0_MS + 1)
    assert set(found) == {WALLET_EVENTS, wallet_answers_topic(B)}
    assert _data(found[wallet_answers_topic(B)][0]).code == "OPERATOR_MISMATCH"
    assert book.book.players[PLAYER].balances_minor == {"EUR": 500}


def test_an_undecodable_deposit_signed_by_as_cashier_is_refused_on_as_topic(keys):
    document = orjson.loads(_value(_deposit(1)))
    del document["data"]["amount_minor"]
    raw = orjson.dumps(document)
    found = _through(WalletPartition(), None, cashier_role(A), value=raw)
    assert _data(found[wallet_answers_topic(A)][0]).code == "INVALID_REQUEST"


def test_the_spins_internal_commands_bind_no_operator_whatever_they_name(keys):
    wager = DebitWager(
        transaction_id=tx(9), player_id=PLAYER, amount_minor=100, currency="EUR", game="rising-joker", operator_id=A
    )
    found = _through(WalletPartition(), wager, "spin", topic=WALLET_INTERNAL)
    assert set(found) == {WALLET_EVENTS} and _data(found[WALLET_EVENTS][0]).code == "ACCOUNT_NOT_FOUND"


def test_an_operators_cashier_key_is_a_cashier_signature_and_nothing_else(keys):
    value = _value(_deposit(1))
    mine = records.signed_headers(cashier_role(A), WALLET_COMMANDS, PLAYER.encode(), value)
    assert records.provenance_problem(WALLET_COMMANDS, mine, value, PLAYER.encode()) is None
    assert records.cashier_operator(WALLET_COMMANDS, value, _signer(mine, value)) == A
    ring = signing.ring()
    assert ring.problem("operator", WALLET_COMMANDS, PLAYER.encode(), value, mine) is not None
    forged = records.signed_headers("wallet", WALLET_COMMANDS, PLAYER.encode(), value)
    assert "only 'cashier' signs this" in records.provenance_problem(WALLET_COMMANDS, forged, value, PLAYER.encode())
    renamed = [(k, cashier_role(B).encode() if k == "reelstream-writer" else v) for k, v in mine]
    # The key binds, never the writer id: the signature covers it, so a renamed record binds no operator at all.
    assert "does not verify" in records.provenance_problem(WALLET_COMMANDS, renamed, value, PLAYER.encode())
    assert records.cashier_operator(WALLET_COMMANDS, value, _signer(renamed, value)) is None


def test_a_cashier_command_without_an_operator_keeps_the_fingerprint_it_always_had():
    t = uuid.UUID(int=1)
    assert fingerprint(Deposit(transaction_id=t, player_id="p-1", amount_minor=100, currency="EUR")) == (
        "560878da8b1428009b03e2e021b36b8d09bab81613abe0f56d826074ab7963c7"
    )
    assert fingerprint(SelfExclude(transaction_id=t, player_id="p-1")) == (
        "e58bd1364978a29329ffbedd8945ca8775cb99e7458fb058b2484c9cdf551670"
    )
    assert fingerprint(Deposit(transaction_id=t, player_id="p-1", amount_minor=100, currency="EUR", operator_id=A)) != (
        "560878da8b1428009b03e2e021b36b8d09bab81613abe0f56d826074ab7963c7"
    )
