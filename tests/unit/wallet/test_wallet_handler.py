"""The record handler over a plain dict table: same facts as the pure core, repeats re-emitted byte for byte,
a torn store write decided afresh to the same event, bounded memory, and bad input never raising."""
from __future__ import annotations

import uuid

import orjson

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import decode, encode, envelope
from shared.events.envelope import epoch_ms
from shared.events.wallet import Deposit, Withdraw

from services.wallet.adapters.handler import DLQ_FIELD, DLQ_REASON, handle
from services.wallet.adapters.store import PRUNE_GRACE_MS, WalletStore
from wallet_scenario import PLAYER, T0, Wallet, tx

T0_MS = epoch_ms(T0)


def record(data, at_ms: int = T0_MS) -> bytes:
    from shared.events.envelope import broker_time

    return encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.UUID(int=at_ms)))


def deposit(n: int, amount_minor: int) -> Deposit:
    return Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR")


def run(table, value: bytes, at_ms: int = T0_MS, offset: int = 0, key: bytes | None = PLAYER.encode(), wall_ms: int = 0):
    return handle(table, key, value, at_ms, ("wallet.commands", 0, offset), wall_ms)


def test_commands_through_the_handler_give_the_pure_cores_events_and_state():
    table: dict[bytes, bytes] = {}
    wallet = Wallet()
    commands = [deposit(1, 500), Withdraw(transaction_id=tx(2), player_id=PLAYER, amount_minor=700, currency="EUR"),
                Withdraw(transaction_id=tx(3), player_id=PLAYER, amount_minor=200, currency="EUR")]
    for command in commands:
        (output,) = run(table, record(command))
        expected = wallet.send(command, envelope_id=uuid.UUID(int=T0_MS))
        assert output.value == encode(expected)
    player, _ = WalletStore(table).load(PLAYER)
    assert player == wallet.state.player
    assert player.balances_minor == {"EUR": 300}


def test_a_repeat_is_re_emitted_byte_for_byte_and_applied_once():
    table: dict[bytes, bytes] = {}
    (first,) = run(table, record(deposit(1, 100)))
    (again,) = run(table, record(deposit(1, 100), T0_MS + 5_000), at_ms=T0_MS + 5_000, offset=1)
    assert again.value == first.value
    assert WalletStore(table).load(PLAYER)[0].balances_minor == {"EUR": 100}


def test_a_crash_after_the_memory_write_but_before_the_state_write_is_decided_afresh_to_the_same_event():
    table: dict[bytes, bytes] = {}
    run(table, record(deposit(1, 100)))
    state_before = table[f"p|{PLAYER}".encode()]
    (original,) = run(table, record(deposit(2, 50)), offset=1)
    table[f"p|{PLAYER}".encode()] = state_before  # the torn write: memory entry of tx 2 present, state without it
    (replayed,) = run(table, record(deposit(2, 50)), offset=1)
    assert replayed.value == original.value
    assert WalletStore(table).load(PLAYER)[0].balances_minor == {"EUR": 150}


def test_memory_entries_and_their_log_are_deleted_once_the_window_and_the_grace_period_have_passed():
    table: dict[bytes, bytes] = {}
    for n in range(1, 4):
        run(table, record(deposit(n, 1)), offset=n, wall_ms=0)
    later_ms = T0_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
    run(table, record(deposit(8, 1), later_ms), at_ms=later_ms, offset=8, wall_ms=PRUNE_GRACE_MS)
    assert len([key for key in table if key.startswith(b"m|")]) == 4, "within the grace period nothing is deleted"
    run(table, record(deposit(9, 1), later_ms), at_ms=later_ms, offset=9, wall_ms=PRUNE_GRACE_MS + 1)
    assert sorted(key for key in table if key.startswith(b"m|")) == sorted(f"m|{PLAYER}|{tx(n)}".encode() for n in (8, 9))
    assert sorted(key for key in table if key.startswith(b"l|")) == [f"l|{PLAYER}|4".encode(), f"l|{PLAYER}|5".encode()]


def test_bytes_that_are_not_json_become_a_dead_letter_with_the_reason_in_headers():
    table: dict[bytes, bytes] = {}
    (output,) = run(table, b"\x00garbage", key=b"whoever")
    assert output.dead_letter
    assert output.value == b"\x00garbage"
    headers = dict(output.headers)
    assert headers[DLQ_FIELD] == b"$"
    assert b"not JSON" in headers[DLQ_REASON]
    assert table == {}


def test_a_command_that_names_its_player_but_breaks_the_contract_is_rejected_as_an_invalid_request():
    raw = orjson.loads(record(deposit(1, 100)))
    raw["data"]["amount_minor"] = 1.5
    raw["data"]["surprise"] = True
    (output,) = run({}, orjson.dumps(raw))
    assert not output.dead_letter
    rejection = decode(output.value)
    assert rejection.data.code == "INVALID_REQUEST"
    assert rejection.data.transaction_id == tx(1)
    assert rejection.data.player_id == PLAYER
    assert output.key == PLAYER.encode()


def test_a_command_on_another_players_key_is_refused_and_touches_no_state():
    table: dict[bytes, bytes] = {}
    (output,) = run(table, record(deposit(1, 100)), key=b"someone-else")
    assert output.dead_letter
    assert table == {}
