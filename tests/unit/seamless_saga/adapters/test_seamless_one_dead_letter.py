"""One bad record on wallet.internal makes one dead letter: the ledger wallet and the seamless saga both read the topic,
and only the ledger wallet refuses a record nobody can decode (it names no operator, so core/route.py cannot give it
to the saga) or one nobody trusted wrote; the saga leaves the first be and only alerts on the second. A seamless
operator's wager the saga refuses is the saga's dead letter alone.

Scenario: the same records go through both loops' decide step (no broker), with every writer's signing key."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

from services.seamless_saga.adapters.service import SeamlessService
from services.wallet.core.book import WalletBook
from shared import records
from shared.config import load_settings
from shared.events import encode
from shared.events.envelope import epoch_ms
from shared.topics import WALLET_INTERNAL
from tests.support.reads import handle
from tests.support.seamless_saga import CORE, PLAYER, SAGA, T0, debit

KEY = PLAYER.encode()
NOT_A_COMMAND = (
    b"\xff\x00 not json",
    b"[1, 2, 3]",
    b'{"specversion":"1.0","type":"reelstream.wallet.debit-wager.v1","data":{}}',
)


def _record(value: bytes, headers) -> SimpleNamespace:
    return SimpleNamespace(
        topic=WALLET_INTERNAL,
        partition=0,
        offset=3,
        key=KEY,
        value=value,
        headers=list(headers),
        timestamp=epoch_ms(T0),
    )


def _letters(outputs: list) -> list:
    return [out for out in outputs if out.dead_letter]


def _dead_letters(value: bytes, headers, saga_book=None) -> tuple[list, list]:
    """The dead letters the ledger wallet and the saga make of one wallet.internal record."""
    saga = SeamlessService(load_settings(), CORE)
    by_wallet = _letters(handle(WalletBook(0), KEY, value, epoch_ms(T0), (WALLET_INTERNAL, 0, 3), list(headers)))
    by_saga = _letters(saga.loop._decide(0, saga_book or SAGA.given().state, [_record(value, headers)]))
    return by_wallet, by_saga


@pytest.mark.parametrize("value", NOT_A_COMMAND)
def test_a_record_the_spin_signed_that_nobody_can_decode_is_the_ledger_wallets_one_dead_letter(keys, value):
    by_wallet, by_saga = _dead_letters(value, records.signed_headers("spin", WALLET_INTERNAL, KEY, value))
    assert [letter.value for letter in by_wallet] == [value]
    assert by_saga == []


@pytest.mark.parametrize("value", NOT_A_COMMAND)
def test_a_record_nobody_trusted_wrote_is_the_ledger_wallets_one_dead_letter(keys, value):
    by_wallet, by_saga = _dead_letters(value, records.headers_for("spin"))
    assert [letter.value for letter in by_wallet] == [value]
    assert by_saga == []


def test_a_seamless_wager_the_saga_refuses_is_its_dead_letter_alone(keys):
    book = SAGA.given().when(debit(1), T0).state
    again = debit(1, stake_minor=999)  # the same wager id with other content
    conflict = encode(again.__class__(**{**again.model_dump(), "id": uuid.uuid4()}))
    by_wallet, by_saga = _dead_letters(conflict, records.signed_headers("spin", WALLET_INTERNAL, KEY, conflict), book)
    assert by_wallet == []
    assert [letter.value for letter in by_saga] == [conflict]
