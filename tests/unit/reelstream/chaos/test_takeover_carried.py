"""The takeover watch reads the positions a service's records carry only from records its owner signed: the carrying
topics are fuzzed in the same run, and a forged or malformed positions header neither stops the watch (an exception in
the fault thread left a kill unmeasured) nor moves a measured position."""

from __future__ import annotations

from types import SimpleNamespace

from reelstream.chaos.takeover import carried
from shared import records, signing
from shared.input_position import INPUTS_HEADER
from shared.topics import WALLET_EVENTS

KEY, VALUE = b"player-1", b'{"type":"reelstream.wallet.deposited.v1"}'


def _record(headers) -> SimpleNamespace:
    return SimpleNamespace(key=KEY, value=VALUE, headers=headers)


def _signed(writer: str, positions: bytes) -> list:
    return records.signed_headers(writer, WALLET_EVENTS, KEY, VALUE, [(INPUTS_HEADER, positions)])


def test_the_owners_signed_record_gives_its_positions(keys):
    assert carried(WALLET_EVENTS, _record(_signed("wallet", b"wallet.commands=12;wallet.internal=7"))) == {
        "wallet.commands": 12,
        "wallet.internal": 7,
    }


def test_a_forged_or_malformed_positions_header_gives_none_and_raises_nothing(keys):
    unsigned = records.headers_for("wallet", [(INPUTS_HEADER, b"wallet.commands=999999999")])
    assert carried(WALLET_EVENTS, _record(unsigned)) == {}
    assert carried(WALLET_EVENTS, _record(_signed("spin", b"wallet.commands=999999999"))) == {}  # another's key
    assert carried(WALLET_EVENTS, _record(_signed("wallet", b"999999999"))) == {}
    bad_name = [("reelstream-writer\udcff", b"x"), (INPUTS_HEADER, b"wallet.commands=5")]
    assert carried(WALLET_EVENTS, _record(bad_name)) == {}
    assert signing.ring() is not None  # signatures were required throughout
