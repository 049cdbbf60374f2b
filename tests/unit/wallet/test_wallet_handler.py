"""The record handler over one partition's state: same facts as the pure core, repeats re-emitted byte for byte,
a partition rebuilt from its emitted events deciding exactly like the live one, bounded memory, and bad input
never raising."""

from __future__ import annotations

import uuid

import orjson

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import decode, encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.events.wallet import Deposit, Withdraw

from tests.support.reads import handle
from shared.dead_letters import FIELD as DLQ_FIELD
from shared.dead_letters import REASON as DLQ_REASON
from services.wallet.core import evolve
from services.wallet.core.book import WalletBook
from tests.support.wallet import PLAYER, T0, Wallet, tx

T0_MS = epoch_ms(T0)


def record(data, at_ms: int = T0_MS) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.UUID(int=at_ms)))


def deposit(n: int, amount_minor: int) -> Deposit:
    return Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR")


def run(partition: WalletBook, value: bytes, at_ms: int = T0_MS, offset: int = 0, key: bytes | None = PLAYER.encode()):
    return handle(partition, key, value, at_ms, ("wallet.commands", 0, offset))


def refold(outputs) -> WalletBook:
    """A fresh partition folded from the emitted events, as recovery does from wallet.events."""
    rebuilt = WalletBook(0)
    for output in outputs:
        if not output.dead_letter:
            evolve(rebuilt, decode(output.value, expect_kind="event"), output.value)
    return rebuilt


def test_commands_through_the_handler_give_the_pure_cores_events_and_state():
    partition = WalletBook(0)
    wallet = Wallet()
    commands = [
        deposit(1, 500),
        Withdraw(transaction_id=tx(2), player_id=PLAYER, amount_minor=700, currency="EUR"),
        Withdraw(transaction_id=tx(3), player_id=PLAYER, amount_minor=200, currency="EUR"),
    ]
    for command in commands:
        (output,) = run(partition, record(command))
        expected = wallet.send(command, envelope_id=uuid.UUID(int=T0_MS))
        assert output.value == encode(expected)
    assert partition.players[PLAYER] == wallet.state.player
    assert partition.players[PLAYER].balances_minor == {"EUR": 300}


def test_a_repeat_is_re_emitted_byte_for_byte_and_applied_once():
    partition = WalletBook(0)
    (first,) = run(partition, record(deposit(1, 100)))
    (again,) = run(partition, record(deposit(1, 100), T0_MS + 5_000), at_ms=T0_MS + 5_000, offset=1)
    assert again.value == first.value
    assert partition.players[PLAYER].balances_minor == {"EUR": 100}


def test_a_partition_rebuilt_from_its_events_equals_the_live_one_and_re_emits_a_repeat_byte_for_byte():
    live = WalletBook(0)
    outputs = [output for n in range(1, 5) for output in run(live, record(deposit(n, 10 * n)), offset=n)]
    (repeat,) = run(live, record(deposit(2, 20), T0_MS + 1_000), at_ms=T0_MS + 1_000, offset=5)
    outputs.append(repeat)  # the re-emitted event is on wallet.events too: the fold must not apply it twice
    rebuilt = refold(outputs)
    assert rebuilt.players == live.players
    assert rebuilt.memory == live.memory
    (again,) = run(rebuilt, record(deposit(3, 30), T0_MS + 2_000), at_ms=T0_MS + 2_000, offset=6)
    assert again.value == outputs[2].value
    assert rebuilt.players[PLAYER].balances_minor == {"EUR": 100}


def test_memory_entries_are_forgotten_once_the_window_has_passed_and_an_id_used_anew_keeps_its_new_entry():
    partition = WalletBook(0)
    for n in range(1, 4):
        run(partition, record(deposit(n, 1)), offset=n)
    later_ms = T0_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
    (reused,) = run(partition, record(deposit(1, 7), later_ms), at_ms=later_ms, offset=8)
    assert decode(reused.value).data.amount_minor == 7, "an expired id is a new command"
    run(partition, record(deposit(9, 1), later_ms), at_ms=later_ms, offset=9)
    assert sorted(partition.memory[PLAYER]) == sorted(str(tx(n)) for n in (1, 9))
    assert partition.memory[PLAYER][str(tx(1))].recorded_ms == later_ms
    assert len(partition.fifo) == 2
    assert partition.players[PLAYER].balances_minor == {"EUR": 11}


def test_bytes_that_are_not_json_become_a_dead_letter_with_the_reason_in_headers():
    partition = WalletBook(0)
    (output,) = run(partition, b"\x00garbage", key=b"whoever")
    assert output.dead_letter
    assert output.value == b"\x00garbage"
    headers = dict(output.headers)
    assert headers[DLQ_FIELD] == b"$"
    assert b"not JSON" in headers[DLQ_REASON]
    assert partition.players == {}
    assert partition.memory == {}


def test_a_command_that_names_its_player_but_breaks_the_contract_is_rejected_as_an_invalid_request():
    raw = orjson.loads(record(deposit(1, 100)))
    raw["data"]["amount_minor"] = 1.5
    raw["data"]["surprise"] = True
    partition = WalletBook(0)
    (output,) = run(partition, orjson.dumps(raw))
    assert not output.dead_letter
    rejection = decode(output.value)
    assert rejection.data.code == "INVALID_REQUEST"
    assert rejection.data.transaction_id == tx(1)
    assert rejection.data.player_id == PLAYER
    assert output.key == PLAYER.encode()
    assert partition.players == {}
    assert partition.memory == {}


def test_a_command_on_another_players_key_is_refused_and_touches_no_state():
    partition = WalletBook(0)
    (output,) = run(partition, record(deposit(1, 100)), key=b"someone-else")
    assert output.dead_letter
    assert partition.players == {}
    assert partition.memory == {}
