"""The codec: one encode/decode path, strict commands, tolerant events, errors that name the field."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.events import DecodeError, decode, derived_id, encode, envelope, may_be
from shared.events.envelope import _ID_NAMESPACE
from shared.events.spin import SpinRequested, SpinRejected
from shared.events.wallet import Deposited, Posting

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)


def a_spin_request(**changes) -> bytes:
    data = SpinRequested(
        request_id=uuid.UUID(int=1),
        player_id="p-1",
        game="rising-joker",
        stake_minor=100,
        currency="EUR",
        session_token="tok",
    )
    raw = orjson.loads(encode(envelope(data, source="test", time=NOW, id=uuid.UUID(int=2))))
    for path, value in changes.items():
        target = raw
        *parents, last = path.split("__")
        for parent in parents:
            target = target[parent]
        if value is ...:
            del target[last]
        else:
            target[last] = value
    return orjson.dumps(raw)


def test_an_envelope_survives_a_round_trip_unchanged():
    original = decode(a_spin_request())
    assert decode(encode(original)) == original
    assert encode(decode(encode(original))) == encode(original)


def test_the_subject_is_the_message_key():
    message = decode(a_spin_request())
    assert message.subject == "p-1"
    assert message.key == b"p-1"


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"data__stake_minor": 1.5}, "data.stake_minor"),
        ({"data__stake_minor": 100.0}, "data.stake_minor"),
        ({"data__stake_minor": "100"}, "data.stake_minor"),
        ({"data__stake_minor": True}, "data.stake_minor"),
        ({"data__player_id": ...}, "data.player_id"),
        ({"data__surprise": 1}, "data.surprise"),
        ({"surprise": 1}, "surprise"),
        ({"data__request_id": "not-a-uuid"}, "data.request_id"),
        ({"specversion": "0.3"}, "specversion"),
        ({"time": "yesterday"}, "time"),
        ({"time": "2026-11-30T12:00:00"}, "time"),
        ({"subject": "someone-else"}, "$"),
        ({"type": "reelstream.spin.unheard-of.v1"}, "type"),
    ],
)
def test_a_malformed_command_raises_a_decode_error_naming_the_field(changes, field):
    with pytest.raises(DecodeError) as caught:
        decode(a_spin_request(**changes))
    assert caught.value.field == field


def test_bytes_that_are_not_json_are_a_decode_error_of_the_whole_record():
    with pytest.raises(DecodeError) as caught:
        decode(b"{not json")
    assert caught.value.field == "$"
    assert caught.value.raw is None


def test_a_broken_record_still_names_the_request_it_was_about():
    with pytest.raises(DecodeError) as caught:
        decode(a_spin_request(data__stake_minor=1.5))
    assert caught.value.readable("request_id") == str(uuid.UUID(int=1))
    assert caught.value.readable("player_id") == "p-1"


def test_events_are_read_tolerantly_so_the_contract_can_grow():
    event = envelope(
        SpinRejected(request_id=uuid.UUID(int=1), player_id="p-1", code="INVALID_STAKE", message="no"),
        source="t",
        time=NOW,
    )
    raw = orjson.loads(encode(event))
    raw["data"]["added_in_v1_1"] = {"anything": True}
    raw["newattribute"] = "x"
    assert decode(orjson.dumps(raw)).data == event.data


def a_deposit_event():
    """A Deposited event of 500.00 EUR with its two postings."""
    return envelope(
        Deposited(
            transaction_id=uuid.UUID(int=3),
            player_id="p-1",
            recorded_at=NOW,
            currency="EUR",
            amount_minor=500,
            balance_after_minor=500,
            postings=(
                Posting(account="player:p-1", amount_micro=500_000_000),
                Posting(account="cashier", amount_micro=-500_000_000),
            ),
        ),
        source="t",
        time=NOW,
    )


def test_events_still_refuse_float_money():
    raw = orjson.loads(encode(a_deposit_event()))
    raw["data"]["amount_minor"] = 500.5
    with pytest.raises(DecodeError) as caught:
        decode(orjson.dumps(raw))
    assert caught.value.field == "data.amount_minor"


def test_a_command_on_an_event_topic_is_refused_when_the_kind_is_expected():
    with pytest.raises(DecodeError) as caught:
        decode(a_spin_request(), expect_kind="event")
    assert caught.value.field == "type"


def test_derived_ids_are_stable_and_distinct_per_cause():
    assert derived_id("tx-1", "debited") == derived_id("tx-1", "debited")
    assert derived_id("tx-1", "debited") != derived_id("tx-1", "settled")


def test_the_type_filter_lets_through_the_wanted_types_and_anything_it_cannot_judge():
    request = a_spin_request()
    assert may_be(request, {SpinRequested.TYPE})
    assert not may_be(request, {SpinRejected.TYPE}), "a well-formed record of another type is skipped"
    assert may_be(b"{not json", {SpinRejected.TYPE}), "undecodable: left to decode, which dead-letters it"
    assert may_be(b'{"type": 7}', {SpinRejected.TYPE}) and may_be(None, {SpinRejected.TYPE})


@pytest.mark.parametrize("amount", [2**63, 2**64 - 1, 2**64, -(2**63) - 1])
def test_an_integer_outside_the_signed_64_bit_range_is_refused_naming_the_field(amount):
    # orjson parses integers up to 2**64 - 1 exactly (beyond: as floats, which money refuses): the contract's bound
    # (Postgres bigint) is what refuses 2**63 .. 2**64 - 1.
    record = a_spin_request().replace(b'"stake_minor":100', b'"stake_minor":%d' % amount)
    with pytest.raises(DecodeError) as caught:
        decode(record)
    assert caught.value.field == "data.stake_minor"


@pytest.mark.parametrize("amount", [2**63 - 1, -(2**63)])
def test_the_signed_64_bit_limits_themselves_are_integers_of_the_contract(amount):
    assert decode(a_spin_request(data__stake_minor=amount)).data.stake_minor == amount


def test_an_event_with_micro_units_beyond_64_bits_is_refused_too():
    raw = orjson.loads(encode(a_deposit_event()))
    raw["data"]["postings"][0]["amount_micro"] = 2**63
    with pytest.raises(DecodeError) as caught:
        decode(orjson.dumps(raw), expect_kind="event")
    assert caught.value.field == "data.postings.0.amount_micro"


@given(st.lists(st.one_of(st.text(max_size=40), st.integers(), st.uuids()), min_size=1, max_size=6))
def test_derived_ids_are_the_rfc_4122_version_5_ids_of_their_causes(parts):
    assert derived_id(*parts) == uuid.uuid5(_ID_NAMESPACE, "/".join(str(part) for part in parts))
    assert derived_id(*parts).version == 5 and derived_id(*parts).variant == uuid.RFC_4122


@given(
    message=st.text(max_size=60),
    correlation=st.none() | st.text(min_size=1, max_size=40),
    request_id=st.none() | st.uuids(),
    stake=st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1),
)
def test_encode_writes_exactly_what_pydantics_model_dump_json_writes(message, correlation, request_id, stake):
    """`encode` calls the serializer itself: the same bytes as `model_dump_json(exclude_none=True).encode()`, None
    attributes left out at every level, any text escaped alike."""
    rejected = SpinRejected(
        request_id=request_id, player_id="p-1", code="INSUFFICIENT_FUNDS", message=message, stake_minor=stake
    )
    deposited = Deposited(
        transaction_id=uuid.UUID(int=4),
        player_id="p-1",
        recorded_at=NOW,
        currency="EUR",
        postings=(Posting(account="player:p-1:EUR", amount_micro=10**6),),
        balance_after_minor=1,
        amount_minor=1,
    )
    for data in (rejected, deposited, decode(a_spin_request()).data):
        wrapped = envelope(data, source="test", time=NOW, id=uuid.UUID(int=3), correlationid=correlation)
        assert encode(wrapped) == wrapped.model_dump_json(exclude_none=True).encode()
