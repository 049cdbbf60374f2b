"""The record handler over one partition: the core's facts encoded once, repeats answered with the very record of the
first time (read back from wallet.events when an earlier batch wrote it: shared/repeats.py), a partition rebuilt from
its events deciding exactly like the live one and answering a repeat with the same bytes, bounded memory, and bad
input never raising."""

from __future__ import annotations

import uuid
from dataclasses import replace

import orjson

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.dead_letters import FIELD as DLQ_FIELD
from shared.dead_letters import REASON as DLQ_REASON
from shared.events import decode, encode
from shared.events.wallet import Withdraw

from tests.support.wallet import PLAYER, Wallet, tx
from tests.support.wallet_partition import T0_MS, WalletPartition, deposit, record


def test_commands_through_the_handler_give_the_cores_events_and_state():
    partition = WalletPartition()
    wallet = Wallet()
    commands = [
        deposit(1, 500),
        Withdraw(transaction_id=tx(2), player_id=PLAYER, amount_minor=700, currency="EUR"),
        Withdraw(transaction_id=tx(3), player_id=PLAYER, amount_minor=200, currency="EUR"),
    ]
    for command in commands:
        (output,) = partition.run(record(command))
        expected = wallet.send(command, envelope_id=uuid.UUID(int=T0_MS))
        assert output.value == encode(expected)
    assert partition.book.players[PLAYER] == wallet.state.player
    assert partition.book.players[PLAYER].balances_minor == {"EUR": 300}


def test_a_repeat_in_a_later_batch_is_the_first_record_read_back_byte_for_byte_and_applied_once():
    partition = WalletPartition()
    (first,) = partition.run(record(deposit(1, 100)))
    (again,) = partition.run(record(deposit(1, 100), T0_MS + 5_000), at_ms=T0_MS + 5_000, offset=1)
    assert partition.reader.read == 1, "the repeat was read back from wallet.events"
    assert (again.key, again.value) == (first.key, first.value)
    assert partition.book.players[PLAYER].balances_minor == {"EUR": 100}


def test_a_repeat_in_the_same_batch_is_the_record_in_hand_and_nothing_is_read_back():
    partition = WalletPartition()
    first, again = partition.batch(
        [
            (record(deposit(1, 100)), T0_MS, 0, PLAYER.encode(), {}),
            (record(deposit(1, 100)), T0_MS, 1, PLAYER.encode(), {}),
        ]
    )
    assert partition.reader.read == 0
    assert (again.key, again.value) == (first.key, first.value)
    assert partition.log[1].value == first.value, "the re-emitted repeat is on wallet.events too"


def test_a_repeat_is_the_first_records_bytes_even_when_the_codec_now_writes_them_otherwise():
    # Scenario: the record on wallet.events is as an older codec wrote it (here: its keys in another order); the
    # repeat must be those bytes, not the event encoded anew.
    partition = WalletPartition()
    (first,) = partition.run(record(deposit(1, 100)))
    older = orjson.dumps(dict(reversed(list(orjson.loads(first.value).items()))))
    assert older != first.value and decode(older) == decode(first.value)
    partition.log[0] = replace(partition.log[0], value=older)
    (again,) = partition.run(record(deposit(1, 100), T0_MS + 1_000), at_ms=T0_MS + 1_000, offset=1)
    assert again.value == older


def test_a_partition_rebuilt_from_its_events_equals_the_live_one_and_re_emits_a_repeat_byte_for_byte():
    live = WalletPartition()
    outputs = [output for n in range(1, 5) for output in live.run(record(deposit(n, 10 * n)), offset=n)]
    (repeat,) = live.run(record(deposit(2, 20), T0_MS + 1_000), at_ms=T0_MS + 1_000, offset=5)
    assert repeat.value == outputs[1].value  # the re-emitted event is on wallet.events too: not applied twice
    rebuilt = live.restored()
    assert rebuilt.book.players == live.book.players
    assert rebuilt.book.memory == live.book.memory
    (again,) = rebuilt.run(record(deposit(3, 30), T0_MS + 2_000), at_ms=T0_MS + 2_000, offset=6)
    assert (again.key, again.value) == (outputs[2].key, outputs[2].value)
    assert rebuilt.reader.read == 1, "read back from the log the restore folded"
    assert rebuilt.book.players[PLAYER].balances_minor == {"EUR": 100}


def test_memory_entries_are_forgotten_once_the_window_has_passed_and_an_id_used_anew_keeps_its_new_entry():
    partition = WalletPartition()
    for n in range(1, 4):
        partition.run(record(deposit(n, 1)), offset=n)
    later_ms = T0_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
    (reused,) = partition.run(record(deposit(1, 7), later_ms), at_ms=later_ms, offset=8)
    assert decode(reused.value).data.amount_minor == 7, "an expired id is a new command"
    partition.run(record(deposit(9, 1), later_ms), at_ms=later_ms, offset=9)
    book = partition.book
    assert sorted(book.memory[PLAYER]) == sorted(str(tx(n)) for n in (1, 9))
    assert book.memory[PLAYER][str(tx(1))].recorded_ms == later_ms
    assert len(book.fifo) == 2
    assert len(list(partition.written.repeats.places())) == 2, "the places are forgotten with the memory"
    assert book.players[PLAYER].balances_minor == {"EUR": 11}


def test_bytes_that_are_not_json_become_a_dead_letter_with_the_reason_in_headers():
    partition = WalletPartition()
    (output,) = partition.run(b"\x00garbage", key=b"whoever")
    assert output.dead_letter
    assert output.value == b"\x00garbage"
    headers = dict(output.headers)
    assert headers[DLQ_FIELD] == b"$"
    assert b"not JSON" in headers[DLQ_REASON]
    assert partition.book.players == {}
    assert partition.book.memory == {}


def test_a_command_that_names_its_player_but_breaks_the_contract_is_rejected_as_an_invalid_request():
    raw = orjson.loads(record(deposit(1, 100)))
    raw["data"]["amount_minor"] = 1.5
    raw["data"]["surprise"] = True
    partition = WalletPartition()
    (output,) = partition.run(orjson.dumps(raw))
    assert not output.dead_letter
    rejection = decode(output.value)
    assert rejection.data.code == "INVALID_REQUEST"
    assert rejection.data.transaction_id == tx(1)
    assert rejection.data.player_id == PLAYER
    assert output.key == PLAYER.encode()
    assert partition.book.players == {}
    assert partition.book.memory == {}


def test_a_command_on_another_players_key_is_refused_and_touches_no_state():
    partition = WalletPartition()
    (output,) = partition.run(record(deposit(1, 100)), key=b"someone-else")
    assert output.dead_letter
    assert partition.book.players == {}
    assert partition.book.memory == {}
