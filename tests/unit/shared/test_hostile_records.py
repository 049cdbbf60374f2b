"""The one guarded path against any bytes a principal may write: header sets, signature headers, nesting and dead
letters. Each test names a class of hostile input and what the guard must do with it; none may raise."""

from __future__ import annotations

import random
import uuid
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared import dead_letters, records, signing
from shared.events import DecodeError, decode, encode, envelope
from shared.events.codec import MAX_JSON_DEPTH
from shared.events.envelope import broker_time
from shared.events.jackpot import DisablePool
from shared.events.spin import SpinRequested
from shared.events.wallet import Withdraw
from shared.headers import REFUSED_BATCH
from shared.operators import OPERATORS, cashier_role
from shared.topics import JACKPOT_COMMANDS, SPIN_REQUESTS, WALLET_COMMANDS

A, B = OPERATORS[:2]
PLAYER = "p-1"


def _value(data) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(1_800_000_000_000)))


def _request() -> bytes:
    data = SpinRequested(
        request_id=uuid.UUID(int=3),
        player_id=PLAYER,
        game="rising-joker",
        stake_minor=10,
        currency="EUR",
        session_token="v1.x.1.y",
    )
    return _value(data)


def _withdraw() -> bytes:
    return _value(Withdraw(transaction_id=uuid.UUID(int=7), player_id=PLAYER, amount_minor=1_000, currency="EUR"))


def _not_utf8(raw: bytes) -> str:
    """A header name as the consumers' record parser hands it over: its bytes kept as surrogates."""
    return raw.decode(errors="surrogateescape")


def test_a_cashier_key_id_put_in_front_of_anothers_signature_binds_and_moves_nothing(keys):
    value = _withdraw()
    theirs = records.signed_headers(cashier_role(B), WALLET_COMMANDS, PLAYER.encode(), value)
    as_key = signing.signer(cashier_role(A)).key_id.encode()
    for forged in ([(signing.KEY_ID, as_key), *theirs], [*theirs, (signing.KEY_ID, as_key)]):
        signer, problem = records.provenance(WALLET_COMMANDS, forged, value, PLAYER.encode())
        assert signer is None and "more than once" in problem
        assert records.cashier_operator(WALLET_COMMANDS, value, signer) is None


def test_the_key_ring_itself_refuses_a_repeated_or_empty_signature_header(keys):
    value = _withdraw()
    theirs = records.signed_headers(cashier_role(B), WALLET_COMMANDS, PLAYER.encode(), value)
    ring = signing.ring()
    for name in sorted(signing.SIGNATURE_HEADERS):
        (content,) = [v for k, v in theirs if k == name]
        for forged in ([*theirs, (name, content)], [(k, None if k == name else v) for k, v in theirs]):
            signer, problem = ring.verify("cashier", WALLET_COMMANDS, PLAYER.encode(), value, forged)
            assert signer is None and "repeated or empty" in problem


def test_whom_a_cashier_command_binds_is_the_writer_of_the_key_that_verified_it(keys):
    value = _withdraw()
    mine = records.signed_headers(cashier_role(A), WALLET_COMMANDS, PLAYER.encode(), value)
    signer, problem = records.provenance(WALLET_COMMANDS, mine, value, PLAYER.encode())
    assert (signer, problem) == (cashier_role(A), None)
    assert records.cashier_operator(WALLET_COMMANDS, value, signer) == A


@pytest.mark.parametrize(
    "headers, why",
    [
        ([(_not_utf8(b"\xff\xfe"), b"v")], "not UTF-8"),
        ([("x", b"")] * (records.MAX_HEADERS + 1), "more than"),
        (records.headers_for("spin") + [(records.WRITER, b"spin")], "more than once"),
        (records.headers_for("spin") + [("content-type", b"text/plain")], "more than once"),
        ([(dead_letters.REDRIVE, b"a"), (dead_letters.REDRIVE, b"b")], "more than once"),
        ([(REFUSED_BATCH, b"zstd batch inflates past 16777216 bytes")], "batch was refused: zstd batch inflates"),
    ],
)
def test_a_header_set_no_platform_writer_makes_is_never_trusted_on_any_topic(headers, why):
    for topic in (SPIN_REQUESTS, WALLET_COMMANDS, "spin.events"):
        signer, problem = records.provenance(topic, headers, b"{}", b"k")
        assert signer is None and why in problem


def test_the_headers_the_platform_writes_pass_the_header_guard(keys):
    value = _withdraw()
    assert records.header_problem(records.headers_for("spin", [("traceparent", b"00-ab-cd-01")])) is None
    assert records.header_problem(records.signed_headers("cashier", WALLET_COMMANDS, b"k", value)) is None


def test_a_request_with_a_bad_header_set_is_refused_by_the_decoder_naming_the_headers():
    value = _request()
    assert records.decode_on(SPIN_REQUESTS, value, PLAYER.encode(), check_key=False, headers=[]).data.stake_minor == 10
    with pytest.raises(DecodeError) as refused:
        records.decode_on(SPIN_REQUESTS, value, PLAYER.encode(), headers=[(_not_utf8(b"\xff"), b"")])
    assert refused.value.field == "headers" and "\\xff" in refused.value.reason


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.binary(max_size=40).map(_not_utf8) | st.sampled_from(sorted(records.READ_ONCE)),
            st.none() | st.binary(max_size=40),
        ),
        max_size=80,
    )
)
def test_any_header_set_is_judged_without_raising_and_its_dead_letter_can_be_written(headers):
    record = SimpleNamespace(key=b"k", value=b"x", headers=headers, partition=0, offset=5)
    records.provenance(SPIN_REQUESTS, headers, b"x", b"k")
    letter = records.dead_letter(SPIN_REQUESTS, SPIN_REQUESTS, record, code="C", reason="r", consumer="spin")
    for name, content in letter.headers:
        assert isinstance(name.encode(), bytes)  # a producer can write every name: all UTF-8
        assert content is not None
    assert len(letter.headers) <= records.MAX_COPIED_HEADERS + 12
    assert records.header_problem(letter.headers) is None  # the dead letter itself stays readable


def test_headers_a_dead_letter_cannot_copy_are_counted_and_digested():
    headers = [(_not_utf8(b"\xff\xfe"), b"v"), ("kept", b"1"), ("null", None)] + [("many", b"x")] * 40
    record = SimpleNamespace(key=b"k", value=b"x", headers=headers, partition=0, offset=5)
    letter = records.dead_letter(SPIN_REQUESTS, SPIN_REQUESTS, record, code="C", reason="r", consumer="spin")
    names = [name for name, _ in letter.headers]
    assert names.count("many") == records.MAX_COPIED_HEADERS - 1 and "kept" in names
    [dropped] = [content for name, content in letter.headers if name == dead_letters.DROPPED_HEADERS]
    count, digest = dropped.decode().split(" ")
    assert int(count) == 2 + 40 - (records.MAX_COPIED_HEADERS - 1) and digest.startswith("sha256:")
    again = records.dead_letter(SPIN_REQUESTS, SPIN_REQUESTS, record, code="C", reason="r", consumer="spin")
    assert again.headers == letter.headers  # the digest is of the headers, nothing else


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b'"session_token":"', b'"', b"a", b"\\", b",", b"{"]), max_size=200))
def test_a_dead_letters_value_is_never_longer_than_the_record(parts):
    value = b"".join(parts)
    assert len(records.redacted(value)) <= len(value)


@pytest.mark.parametrize("field", ["request_id", "player_id", "stake_minor", "session_token"])
def test_a_field_nested_past_the_bound_is_refused_before_anything_reads_it(field):
    value = _request()
    deep = b"[" * 1000 + b"]" * 1000
    hostile = value.replace(f'"{field}":'.encode(), f'"{field}":'.encode() + deep + b',"_":', 1)
    with pytest.raises(DecodeError) as refused:
        records.decode_on(SPIN_REQUESTS, hostile, PLAYER.encode(), check_key=False)
    assert "nested deeper" in refused.value.reason and refused.value.raw is None
    assert refused.value.readable("request_id") is None


def test_nesting_up_to_the_bound_is_judged_by_the_model_not_refused_for_depth():
    nested = b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1)
    with pytest.raises(DecodeError) as refused:
        decode(b'{"type": "reelstream.spin.requested.v1", "x": ' + nested + b"}")
    assert "nested deeper" not in refused.value.reason
    with pytest.raises(DecodeError) as deeper:
        decode(b'{"type": "reelstream.spin.requested.v1", "x": [' + nested + b"]}")
    assert "nested deeper" in deeper.value.reason


def test_a_broken_records_fields_are_offered_as_scalars_only():
    error = DecodeError("data", "bad", {"data": {"request_id": [[["x"]]], "player_id": "p-1", "n": {"a": 1}}})
    assert error.readable("request_id") is None and error.readable("n") is None
    assert error.readable("player_id") == "p-1"
    assert error.readable_uuid("player_id") is None
    good = DecodeError("data", "bad", {"data": {"request_id": str(uuid.UUID(int=9))}})
    assert good.readable_uuid("request_id") == uuid.UUID(int=9)


def test_a_pool_command_must_be_keyed_by_its_network():
    value = _value(DisablePool(network_id="diamond-mystery", command_id=uuid.UUID(int=1), pool_id="dm-green"))
    assert records.decode_on(JACKPOT_COMMANDS, value, b"diamond-mystery").data.pool_id == "dm-green"
    for key in (None, b"", b"other-network"):
        with pytest.raises(records.Misfit) as refused:
            records.decode_on(JACKPOT_COMMANDS, value, key)
        assert refused.value.code == records.WRONG_KEY


def test_network_keyed_topics_are_checked_for_their_keys_partition():
    record = SimpleNamespace(key=b"diamond-mystery", partition=0)
    problems = [records.placement_problem(topic, record, 2) for topic in (JACKPOT_COMMANDS, "jackpot.internal")]
    moved = SimpleNamespace(key=b"diamond-mystery", partition=1)
    moved_problems = [records.placement_problem(t, moved, 2) for t in (JACKPOT_COMMANDS, "jackpot.internal")]
    assert sorted(map(bool, problems + moved_problems)) == [False, False, True, True]


def _letter_size(letter) -> int:
    headers = sum(len(name.encode()) + len(content) for name, content in letter.headers)
    return len(letter.key or b"") + len(letter.value) + headers


@pytest.mark.parametrize(
    "key, value, how",
    [
        (b"k", b"0" * (4 * 1024 * 1024), {"value": "zstd"}),  # a compressed batch's record: compressible
        (b"k", random.Random(7).randbytes(3 * 1024 * 1024), {"value": "cut"}),
        (b"x" * (200 * 1024), b"{}", {"key": "zstd"}),
    ],
)
def test_a_record_only_a_compressed_batch_can_carry_still_fits_its_dead_letter_with_its_digest(key, value, how):
    import hashlib

    from shared.topics import DLQ_MAX_MESSAGE_BYTES

    headers = [("big", b"h" * (1024 * 1024)), *records.headers_for("game-client")]
    record = SimpleNamespace(key=key, value=value, headers=headers, partition=0, offset=5)
    letter = records.dead_letter(SPIN_REQUESTS, SPIN_REQUESTS, record, code="C", reason="r", consumer="spin")
    assert _letter_size(letter) < DLQ_MAX_MESSAGE_BYTES - 64 * 1024
    found = dict(letter.headers)
    for part, kind in how.items():
        original = {"key": key, "value": value}[part]
        note = found[dead_letters.SHRUNK_KEY if part == "key" else dead_letters.SHRUNK_VALUE].decode()
        assert note == f"{kind} {len(original)} sha256:{hashlib.sha256(original).hexdigest()}"
    assert dead_letters.DROPPED_HEADERS in found  # the 1 MiB header: counted and digested, not copied


def test_every_record_that_can_decode_keeps_its_bytes_in_its_dead_letter():
    from shared.events.codec import MAX_RECORD_BYTES

    value = b"v" * MAX_RECORD_BYTES
    record = SimpleNamespace(key=b"k", value=value, headers=[], partition=0, offset=5)
    letter = records.dead_letter(SPIN_REQUESTS, SPIN_REQUESTS, record, code="C", reason="r", consumer="spin")
    assert letter.value == value and dead_letters.SHRUNK_VALUE not in dict(letter.headers)
