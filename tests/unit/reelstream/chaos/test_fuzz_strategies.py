"""The fuzzer's records: a seed draws the same bytes again; each record fits what its principal may write (under the
broker's limit, a bomb once compressed); a 500-record batch stays small; names that are not UTF-8 reach the wire;
the signature class carries a real signature's headers on other bytes, or a signature header twice; and each topic
is written by the least privileged principal the ACLs allow."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka import codec
from kafka.record.default_records import DefaultRecordBatchBuilder

from reelstream.chaos import fuzz_values as values
from reelstream.chaos.campaign import PLAYERS, draw_records
from reelstream.chaos.fuzz import BOMB_CODECS, INPUT_TOPICS, OWN_KEYS, PRINCIPALS
from reelstream.chaos.fuzz_bytes import RawName
from reelstream.chaos.fuzz_messages import valid
from reelstream.chaos.fuzz_signed import SIGNATURE_NAMES, signed_copy, signed_twice
from shared import signing
from shared.roles import ROLES
from reelstream.processes import KNOWN as SERVICES  # every service principal, the seamless saga too
from shared.topics import ALL_TOPICS, spec

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc)
NOW_ID = uuid.UUID(int=7)
signed_values: list[bytes] = []


def fake_signer(writer, topic, key, value, headers):
    """A signature that depends on what is signed, as a real one does (no key ring in unit tests)."""
    signed_values.append(value)
    digest = hashlib.sha256(repr((writer, topic, key, value)).encode()).digest()
    return [*headers, (signing.KEY_ID, f"{writer}-kid".encode()), (signing.SIGNATURE, digest), (signing.PATH, b"")]


def _bytes(item) -> tuple:
    headers = [(getattr(name, "raw", None) or name.encode(), value) for name, value in item.headers]
    return item.topic, item.key, item.value, headers, item.codec, item.partition


def _size(item) -> int:
    headers = sum(len(name.encode()) + len(value) for name, value in item.headers)
    return len(item.key or b"") + len(item.value or b"") + headers


def test_the_same_seed_draws_the_same_records_and_another_seed_others():
    first = [_bytes(item) for item in draw_records(40, 60, NOW, fake_signer)]
    again = [_bytes(item) for item in draw_records(40, 60, NOW, fake_signer)]
    other = [_bytes(item) for item in draw_records(41, 60, NOW, fake_signer)]
    assert first == again
    assert first != other
    assert len(first) == 60


def test_a_batch_of_500_stays_well_under_30_mb_and_every_record_fits_the_broker():
    drawn = draw_records(7, 500, NOW, fake_signer)
    plain = [item for item in drawn if item.shape != "bomb"]
    assert sum(_size(item) for item in plain) < 30_000_000
    assert max(_size(item) for item in plain) < values.BROKER_MAX_BATCH_BYTES
    assert {item.topic for item in drawn} == set(INPUT_TOPICS)


def test_the_choices_made_late_in_a_record_are_not_squeezed_to_their_simplest_value():
    drawn = draw_records(7, 500, NOW, fake_signer)
    kinds = Counter(item.shape for item in drawn if item.shape.startswith("mutated/"))
    assert len(kinds) == 8
    assert max(kinds.values()) < 0.4 * sum(kinds.values())


@pytest.mark.parametrize("name", BOMB_CODECS)
def test_the_largest_bomb_compresses_under_the_brokers_limit_and_inflates_far_past_it(name):
    bomb = values.bomb(valid("spin.requests", PLAYERS[0], NOW, (NOW_ID, NOW_ID)), max(values.BOMB_SIZES))
    compressed = getattr(codec, f"{name}_encode")(bomb)
    assert len(compressed) < values.BROKER_MAX_BATCH_BYTES
    assert len(bomb) > 10 * values.BROKER_MAX_BATCH_BYTES


def test_a_huge_value_is_exactly_its_size_and_a_nested_one_is_a_thousand_levels_deep():
    message = valid("wallet.commands", PLAYERS[0], NOW, (NOW_ID, NOW_ID))
    assert len(values.padded(message, values.HUGE_MAX_BYTES, 3)) == values.HUGE_MAX_BYTES
    nested = values.nested(message, "player_id", 1_000, arrays=True)
    assert b'"player_id": ' + b"[" * 1_000 + b"]" * 1_000 in nested
    assert json.loads(values.nested(message, "x_nested", 50, arrays=False))["data"]["x_nested"]["a"]["a"]


def test_a_header_name_that_is_not_utf8_reaches_the_wire_byte_for_byte():
    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 16384)
    builder.append(0, 0, b"k", b"v", [(RawName(b"\xffname"), b"value")])
    assert b"\xffname" in bytes(builder.build())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(topic=st.sampled_from(INPUT_TOPICS), data=st.data())
def test_a_copied_signature_is_never_on_the_bytes_it_signed(topic, data):
    signed_values.clear()
    salt = data.draw(st.integers(0, 2**64 - 1))
    shape, key, value, headers = data.draw(signed_copy(topic, PLAYERS[0], NOW, fake_signer, salt))
    assert value not in signed_values
    assert any(name == signing.SIGNATURE for name, _ in headers)
    assert shape.startswith("signed-copy/")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(topic=st.sampled_from(OWN_KEYS), data=st.data())
def test_a_command_signed_with_the_writers_own_key_carries_one_signature_header_twice(topic, data):
    signed_values.clear()
    salt = data.draw(st.integers(0, 2**64 - 1))
    _, key, value, headers = data.draw(signed_twice(topic, PRINCIPALS[topic], PLAYERS[0], NOW, fake_signer, salt))
    names = [name for name, _ in headers if name in SIGNATURE_NAMES]
    assert len(names) == len(SIGNATURE_NAMES) + 1
    assert value in signed_values  # its own signature verifies: only the repeat is wrong
    assert key == json.loads(value)["subject"].encode()


def _writes(role: str) -> int:
    return sum(1 for topic in ALL_TOPICS if role in topic.writers)


@pytest.mark.parametrize("topic", INPUT_TOPICS)
def test_each_input_topic_is_written_by_its_least_privileged_writer(topic):
    chosen, writers = PRINCIPALS[topic], spec(topic).writers
    assert chosen in writers
    outside = [role for role in writers if role not in SERVICES]
    if outside:
        assert chosen in outside
        assert _writes(chosen) == min(_writes(role) for role in outside)
    assert chosen in {role.name for role in ROLES}
