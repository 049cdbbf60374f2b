"""`decode_one_pass` is `decode` in one pass over the bytes: the same envelope for every record of a synthetic history,
and for bytes edited at random, the same envelope or the same DecodeError (field and reason) as `decode`."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.synthetic.spins import play_history
from shared.events import DecodeError, decode, encode, envelope
from shared.events.codec import decode_one_pass
from shared.events.spin import SpinRequested
from shared.events.wallet import Deposit

VALUES = [encode(item.envelope) for item in play_history(seed=9, players=2, spins_per_player=6).emitted]
_NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
WAGER = {"request_id": uuid.uuid4(), "player_id": "p-1", "game": "rising-joker", "stake_minor": 10, "currency": "EUR"}
COMMANDS = [
    encode(envelope(SpinRequested(**WAGER, session_token="t"), source="test", time=_NOW)),
    encode(
        envelope(
            Deposit(transaction_id=uuid.uuid4(), player_id="p-1", amount_minor=5, currency="EUR"), source="t", time=_NOW
        )
    ),
]


def outcome(function, value):
    try:
        return ("ok", function(value))
    except DecodeError as error:
        return ("error", error.field, error.reason)


def test_every_record_of_a_history_decodes_to_the_same_envelope():
    assert all(decode_one_pass(value) == decode(value) for value in VALUES)
    assert len({decode_one_pass(value).type for value in VALUES}) >= 6


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(VALUES) - 1), at=st.floats(0, 1), junk=st.binary(min_size=0, max_size=12))
def test_edited_bytes_decode_alike_or_fail_alike(index, at, junk):
    value = VALUES[index]
    cut = int(at * len(value))
    edited = value[:cut] + junk + value[cut + len(junk) // 2 :]
    assert outcome(decode_one_pass, edited) == outcome(decode, edited)


@pytest.mark.parametrize(
    "value",
    [
        None,
        b"",
        b"[1]",
        b'{"type":"reelstream.wallet.deposited.v1"}',
        VALUES[0].replace(b'"amount_minor":', b'"amount_minor":1.5,"x":'),
        VALUES[0] + b" ",
        VALUES[0].replace(b'"type":"reelstream.wallet.deposited.v1"', b'"type":"reelstream.spin.settled.v1"'),
        b'{"data":{"type":"reelstream.wallet.deposited.v1"},' + VALUES[0][1:],
        b'{"type":"reelstream.spin.settled.v1",' + VALUES[0][1:],
        VALUES[0][:-1] + b',"type":"reelstream.spin.settled.v1"}',
    ],
)
def test_hand_made_oddities_decode_alike_or_fail_alike(value):
    assert outcome(decode_one_pass, value) == outcome(decode, value)


@pytest.mark.parametrize("kind", ["command", "event"])
def test_with_an_expected_kind_every_record_decodes_or_is_refused_alike(kind):
    """A command where an event is expected (and the other way round) is refused with decode's error."""
    outcomes = [(outcome(lambda v: decode_one_pass(v, expect_kind=kind), value), value) for value in VALUES + COMMANDS]
    assert {result[0] for result, _ in outcomes} == {"ok", "error"}  # the history holds commands and events
    for result, value in outcomes:
        assert result == outcome(lambda v: decode(v, expect_kind=kind), value)


@settings(max_examples=200, deadline=None)
@given(index=st.integers(0, len(VALUES + COMMANDS) - 1), at=st.floats(0, 1), junk=st.binary(min_size=0, max_size=12))
def test_edited_bytes_with_an_expected_kind_decode_alike_or_fail_alike(index, at, junk):
    value = (VALUES + COMMANDS)[index]
    cut = int(at * len(value))
    edited = value[:cut] + junk + value[cut + len(junk) // 2 :]
    for kind in ("command", "event"):
        expected = outcome(lambda v: decode(v, expect_kind=kind), edited)
        assert outcome(lambda v: decode_one_pass(v, expect_kind=kind), edited) == expected
