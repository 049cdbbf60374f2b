"""The wallet's partition guard: a command off its key's murmur2 partition is dead-lettered WRONG_PARTITION and
touches no book (that partition's book does not hold its player); a command in its place is decided as ever."""

from __future__ import annotations

import orjson

from tests.support.reads import handle
from services.wallet.core.book import WalletBook
from shared.dead_letters import CODE as DLQ_CODE
from shared.events import decode
from shared.partitioning import partition_for
from tests.support.wallet import PLAYER
from tests.support.wallet_partition import T0_MS, deposit, record

PARTITIONS = 6
HOME = partition_for(PLAYER.encode(), PARTITIONS)
ELSEWHERE = (HOME + 1) % PARTITIONS


def _run(book: WalletBook, value: bytes, partition: int, partitions: int | None = PARTITIONS):
    return handle(book, PLAYER.encode(), value, T0_MS, ("wallet.commands", partition, 0), None, partitions)


def test_a_command_off_its_players_partition_is_dead_lettered_wrong_partition_and_changes_nothing():
    book = WalletBook(ELSEWHERE)
    (output,) = _run(book, record(deposit(1, 100)), ELSEWHERE)
    assert output.dead_letter
    assert dict(output.headers)[DLQ_CODE] == b"WRONG_PARTITION"
    assert output.value == record(deposit(1, 100))  # the record's own bytes, kept
    assert book.players == {} and book.memory == {}


def test_a_command_on_its_players_partition_is_decided():
    book = WalletBook(HOME)
    (output,) = _run(book, record(deposit(1, 100)), HOME)
    assert not output.dead_letter
    assert book.players[PLAYER].balances_minor == {"EUR": 100}


def test_without_a_partition_count_nothing_is_checked():
    book = WalletBook(ELSEWHERE)
    (output,) = _run(book, record(deposit(1, 100)), ELSEWHERE, partitions=None)
    assert not output.dead_letter


def test_an_undecodable_command_naming_a_player_of_another_partition_gets_no_rejection_here():
    raw = orjson.loads(record(deposit(1, 100)))
    raw["data"]["amount_minor"] = 1.5
    value = orjson.dumps(raw)
    book = WalletBook(ELSEWHERE)
    (output,) = handle(book, None, value, T0_MS, ("wallet.commands", ELSEWHERE, 0), None, PARTITIONS)
    assert output.dead_letter  # a rejection here would sit off its player's partition
    assert book.players == {} and book.memory == {}
    (answered,) = handle(WalletBook(HOME), None, value, T0_MS, ("wallet.commands", HOME, 0), None, PARTITIONS)
    assert not answered.dead_letter
    assert decode(answered.value).data.code == "INVALID_REQUEST"
