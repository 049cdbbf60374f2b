"""Hostile records for every input topic as hypothesis strategies: any key, value, header set, codec and partition a
principal allowed on the topic could write (docs/chaos.md, "The fuzzer"); every byte comes from the draws, the given
`now` and signer, so a seed draws the same records again."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson
from hypothesis import strategies as st

from reelstream.chaos import fuzz_values as values
from reelstream.chaos.fuzz_bytes import Headers, header_sets, keys
from reelstream.chaos.fuzz_messages import ids_from, internal, other_type, valid
from reelstream.chaos.fuzz_signed import Signer, foreign_signed, signed_copy, signed_twice
from shared import operators
from shared.records import headers_for
from shared.topics import SEAMLESS_SAGA, spec

WRITER = "fuzzer"
# Every topic a consumer of the platform reads that a principal other than its owner may write, or that a second
# service may (the internal commands, the jackpot's answers to the spin service).
INPUT_TOPICS = (
    "spin.requests",
    "wallet.commands",
    "jackpot.commands",
    "wallet.internal",
    "jackpot.internal",
    "wallet.events",
    "jackpot.events",
    "jackpot.meters",
    "spin.jackpot-answers",
    "spin.journal",
    "spin.events",
    "wallet.seamless",
    "wallet.seamless-calls",
)
# Who writes each input topic's hostile records: the least privileged principal the ACLs let write it (checked
# against shared/topics.py by tests/unit/reelstream/chaos). An outside role where one may; one operator's cashier
# for the cashier's commands, so that a record of the signature class could try to act for another operator; ops for
# the event topics (it may re-drive dead letters onto them); the one service the broker lets write the rest.
PRINCIPALS = {
    "spin.requests": "game-client",
    "wallet.commands": operators.cashier_role(operators.OPERATORS[-1]),
    "jackpot.commands": "operator",
    "wallet.internal": "spin",
    "jackpot.internal": "spin",
    "spin.jackpot-answers": "jackpot",
    "wallet.seamless": SEAMLESS_SAGA,  # the seamless saga's facts, which the spin service reads too
    "wallet.seamless-calls": SEAMLESS_SAGA,  # the saga's outbox's outcomes, which its loop reads
    **{topic: "ops" for topic in ("wallet.events", "jackpot.events", "jackpot.meters", "spin.journal", "spin.events")},
}
# The input topics whose writing principal holds a signing key of its own (shared/signing.py WRITERS).
OWN_KEYS = ("wallet.commands", "jackpot.commands")
CODECS = (None, "gzip", "snappy", "lz4", "zstd")
# Snappy's best ratio is far lower than these three's: a snappy bomb would not get under the broker's limit.
BOMB_CODECS = ("gzip", "lz4", "zstd")
INT64_EDGES = (2**63 - 1, -(2**63), 2**63, 2**64, 2**49, -1, 0)
HUGE = (2**63 - 1, 2**49, 10**12, -(10**12))  # amounts the models accept and no business allows
ODD_VALUES = ("text", 1.5, True, None, [], {}, "été", "x" * 300)
# How often each value shape is drawn. Records padded to the broker's limit and bombs are rare: enough to cross the
# size guards every batch or two, few enough that a batch of records stays well under the broker's request size.
SHAPES = ("bytes",) * 2 + ("empty", "tombstone") + ("not-object",) * 2 + ("mutated",) * 8 + ("internal",) * 2
SHAPES += ("wrong-type",) * 2 + ("deep",) * 2 + ("signed-copy",) * 2 + ("signed-twice",)
HUGE_PER_1000, BOMBS_PER_1000 = 5, 2
# The seamless saga's topics, which one service writes and another may read: besides the shapes above, a message of the
# other seamless topic's type, and one signed with another service's own key (the best a forger holding a key has).
SEAMLESS_TOPICS = ("wallet.seamless", "wallet.seamless-calls")
SEAMLESS_SHAPES = ("other-type", "foreign-signed")
NOT_OBJECTS = (b"[1, 2, 3]", b"42", b'"a string"', b"null", b"true", b"[[[[[[[[[[]]]]]]]]]]")


@dataclass(frozen=True)
class Hostile:
    topic: str  # logical name: the caller adds the deployment's prefix
    key: bytes | None
    value: bytes | None
    headers: Headers
    codec: str | None = None  # the compression of the batch it is written in (None: uncompressed)
    partition: int | None = None  # written there explicitly (None: the producer's partitioner picks by key)
    shape: str = ""  # what kind of value, e.g. "deep/request_id"
    key_shape: str = ""
    header_shape: str = ""


@st.composite
def _mutated(draw, message: dict[str, Any], now: datetime) -> tuple[str, bytes]:
    data = message["data"]
    kind = draw(st.sampled_from(("drop", "extra", "retype", "edge", "unknown", "token", "time", "envelope")))
    field = draw(st.sampled_from(sorted(data)))
    if kind == "drop":
        del data[field]
    elif kind == "extra":
        data[draw(st.sampled_from(("extra", "admin", "__proto__")))] = draw(st.sampled_from(ODD_VALUES))
    elif kind == "retype":
        data[field] = draw(st.sampled_from(ODD_VALUES))
    elif kind == "edge":
        data[draw(st.sampled_from([name for name in data if name.endswith(("_minor", "_micro"))] or [field]))] = draw(
            st.sampled_from(INT64_EDGES)
        )
    elif kind == "unknown":
        for name, value in (("game", "blackjack"), ("currency", "XXX"), ("network_id", "nowhere"), ("tier", "gold")):
            if name in data:
                data[name] = value
    elif kind == "token" and "session_token" in data:
        data["session_token"] = draw(
            st.sampled_from(
                ("", "v1.cA.9999999999999.été", "v1.x.1.forged", "v2.k.a.1.b", "\x00" * 40, "v1." + "a" * 5000)
            )
        )
    elif kind == "time":
        message["time"] = (now + timedelta(days=draw(st.sampled_from((-3650, -2, 2, 3650))))).isoformat()
    else:
        message.pop(draw(st.sampled_from(("specversion", "id", "type", "subject", "time", "source"))), None)
    if draw(st.booleans()) and kind == "retype":
        data[field] = float("nan")  # written as NaN: not JSON, as a careless client's encoder sends it
    return f"mutated/{kind}", json.dumps(message).encode()  # the stdlib writes integers past 64 bits too


@st.composite
def _value(draw, shape: str, topic: str, player_id: str, now: datetime, salt: int) -> tuple[str, bytes | None]:
    """(shape, value) of the shapes that leave the key and headers to their own draws."""
    ids = ids_from(salt, 5)
    message = valid(topic, player_id, now, ids[:2])
    if shape == "bytes":
        return shape, draw(st.binary(min_size=1, max_size=64).filter(lambda raw: not raw.startswith(b"{")))
    if shape in ("empty", "tombstone"):
        return shape, b"" if shape == "empty" else None
    if shape == "not-object":
        return shape, draw(st.sampled_from(NOT_OBJECTS))
    if shape == "internal":
        return shape, orjson.dumps(internal(topic, player_id, now, draw(st.sampled_from(HUGE)), ids[2:]))
    if shape == "other-type":
        return shape, orjson.dumps(other_type(topic, player_id, now, ids[:2]))
    if shape == "wrong-type":
        return draw(values.wrong_types(message))
    if shape == "deep":
        return draw(values.deep(message))
    return draw(_mutated(message, now))


def _shape(draw, topic: str) -> str:
    rare = draw(st.sampled_from(range(1000)))
    if rare < HUGE_PER_1000:
        return "huge"
    if rare < HUGE_PER_1000 + BOMBS_PER_1000:
        return "bomb"
    shape = draw(st.sampled_from(SHAPES + (SEAMLESS_SHAPES if topic in SEAMLESS_TOPICS else ())))
    return "signed-copy" if shape == "signed-twice" and topic not in OWN_KEYS else shape


def _unsigned(writer: str, topic: str, key: bytes | None, value: bytes | None, headers: Headers) -> Headers:
    return list(headers)


def hostile(
    topics: tuple[str, ...], players: tuple[str, ...], now: datetime, signer: Signer = _unsigned
) -> st.SearchStrategy[Hostile]:
    """One hostile record for one of `topics`, about one of `players`; `signer` signs the signature class's records
    (`shared.signing.sign_one`: the environment's keys)."""

    @st.composite
    def one(draw) -> Hostile:
        salt = draw(st.integers(0, 2**64 - 1))  # every id and filler byte of the record comes from this one draw
        topic = draw(st.sampled_from(topics))
        player_id = draw(st.sampled_from(players))
        shape = _shape(draw, topic)
        codec = draw(st.sampled_from(BOMB_CODECS if shape == "bomb" else CODECS))
        partition = draw(st.sampled_from((None,) * 5 + tuple(range(spec(topic).partitions))))
        if shape in ("huge", "bomb"):
            message = valid(topic, player_id, now, ids_from(salt, 2))
            size = draw(st.sampled_from(values.HUGE_SIZES if shape == "huge" else values.BOMB_SIZES))
            value = values.padded(message, size, salt) if shape == "huge" else values.bomb(message, size)
            return Hostile(
                topic, player_id.encode(), value, headers_for(WRITER), codec, None, shape, "player", "default"
            )
        if shape == "signed-copy":
            detail, key, value, headers = draw(signed_copy(topic, player_id, now, signer, salt))
            return Hostile(topic, key, value, headers, codec, None, detail, "subject", "signed")
        if shape == "foreign-signed":
            detail, key, value, headers = draw(foreign_signed(topic, player_id, now, signer, salt))
            return Hostile(topic, key, value, headers, codec, partition, detail, "subject", "signed")
        if shape == "signed-twice":
            detail, key, value, headers = draw(signed_twice(topic, PRINCIPALS[topic], player_id, now, signer, salt))
            return Hostile(topic, key, value, headers, codec, None, detail, "subject", "signed")
        detail, value = draw(_value(shape, topic, player_id, now, salt))
        key_shape, key = draw(keys(player_id.encode(), salt))
        header_shape, headers = draw(header_sets(headers_for(WRITER), salt))
        return Hostile(topic, key, value, headers, codec, partition, detail, key_shape, header_shape)

    return one()
