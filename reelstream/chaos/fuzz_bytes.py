"""Hostile record keys and header sets, as hypothesis strategies: keys that are missing, empty, huge or not UTF-8;
header names and values that are not UTF-8, repeated platform headers, forged input positions, thousands of
headers."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from shared import dead_letters, signing
from shared.headers import CONTENT_TYPE, JACKPOT_PROOF, ORIGINAL_WRITER, WRITER
from shared.input_position import INPUTS_HEADER, POSITION_HEADER
from shared.observability.tracing import TRACEPARENT

Headers = list[tuple[str, bytes]]
KEY_MAX_BYTES = 64 * 1024
# Every header a check, a decision or a tool of the platform reads: where a repeat or a bad value could mislead.
PLATFORM_HEADERS = (
    WRITER,
    CONTENT_TYPE,
    signing.KEY_ID,
    signing.SIGNATURE,
    signing.PATH,
    TRACEPARENT,
    dead_letters.REDRIVE,
    ORIGINAL_WRITER,
    JACKPOT_PROOF,
    dead_letters.CODE,
    dead_letters.SOURCE_TOPIC,
    INPUTS_HEADER,
    POSITION_HEADER,
)
# Input positions as a service's own outputs carry them (its restore resumes there): far ahead, behind, nonsense.
FORGED_POSITIONS = (
    b"spin.requests=999999999;wallet.events=999999999;spin.jackpot-answers=999999999",
    b"wallet.commands=0;wallet.internal=0",
    b"jackpot.commands=-1;jackpot.internal=-5",
    b"999999999",
    b"spin.requests=",
)
# Byte strings no UTF-8 decoder accepts: a lone continuation, an invalid pair, an encoded surrogate, a 5-byte form.
NOT_UTF8 = (b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", WRITER.encode() + b"\xff", b"\x80ab")
KEY_SHAPES = ("player",) * 5 + ("none", "empty", "huge", "not-utf8", "other")
HEADER_SHAPES = ("default",) * 6 + (
    "none",
    "claims",
    "name-not-utf8",
    "value-not-utf8",
    "repeated",
    "repeated",
    "thousands",
    "empty-name",
    "big-value",
    "forged-position",
)
# Writer ids a record may claim without the matching key: every service, the outside roles, nothing, ops.
CLAIMS = ("spin", "wallet", "jackpot", "monitor", "cashier", "operator", "ops", "")


class RawName(str):
    """A header name whose bytes are not UTF-8. kafka-python encodes each name with `name.encode("utf-8")` (for the
    record and for its size estimate), so a str whose `encode` returns the raw bytes is the only way to write one."""

    raw: bytes

    def __new__(cls, raw: bytes) -> RawName:
        made = super().__new__(cls, raw.decode("utf-8", errors="backslashreplace"))
        made.raw = raw
        return made

    def encode(self, *args, **kwargs) -> bytes:
        return self.raw

    def __reduce__(self):
        return RawName, (self.raw,)


def filler(size: int, seed: int) -> bytes:
    """`size` bytes that look random, the same for the same seed (large content drawn from one small choice)."""
    return random.Random(seed).randbytes(size)


@st.composite
def keys(draw, player_key: bytes, salt: int) -> tuple[str, bytes | None]:
    """(shape, key): the player's id mostly, else none, empty, oversized, not UTF-8 or another player's."""
    shape = draw(st.sampled_from(KEY_SHAPES))
    if shape == "player":
        return shape, player_key
    if shape == "none":
        return shape, None
    if shape == "empty":
        return shape, b""
    if shape == "huge":
        size = draw(st.sampled_from((1024, 16 * 1024, KEY_MAX_BYTES)))
        return shape, filler(size, salt)
    if shape == "not-utf8":
        return shape, draw(st.sampled_from(NOT_UTF8)) + player_key
    return shape, b"other-" + player_key


def _garbage(draw) -> bytes:
    return draw(st.sampled_from((b"", b"x", b"\x00" * 8, b"00-" + b"f" * 32 + b"-" + b"0" * 16 + b"-01", *NOT_UTF8)))


@st.composite
def header_sets(draw, base: Headers, salt: int) -> tuple[str, Headers]:
    """(shape, headers): `base` (what an honest client would write) or a hostile variant of it."""
    shape = draw(st.sampled_from(HEADER_SHAPES))
    headers = list(base)
    at = draw(st.integers(0, len(headers)))
    if shape == "none":
        headers = []
    elif shape == "claims":
        headers = [(name, value) for name, value in headers if name != WRITER]
        headers.insert(min(at, len(headers)), (WRITER, draw(st.sampled_from(CLAIMS)).encode()))
    elif shape == "name-not-utf8":
        headers.insert(at, (RawName(draw(st.sampled_from(NOT_UTF8))), _garbage(draw)))
    elif shape == "value-not-utf8":
        name = draw(st.sampled_from(PLATFORM_HEADERS))
        headers = [(n, v) for n, v in headers if n != name] if draw(st.booleans()) else headers
        headers.insert(min(at, len(headers)), (name, draw(st.sampled_from(NOT_UTF8))))
    elif shape == "repeated":
        name = draw(st.sampled_from(PLATFORM_HEADERS))
        for _ in range(draw(st.sampled_from((1, 2, 9)))):
            copied = next((v for n, v in base if n == name), None)
            value = copied if copied is not None and draw(st.booleans()) else _garbage(draw)
            headers.insert(draw(st.integers(0, len(headers))), (name, value))
    elif shape == "thousands":
        count = draw(st.sampled_from((1_000, 2_000, 5_000)))
        same = draw(st.sampled_from((None, *PLATFORM_HEADERS)))
        headers += [(same or f"x-{index}", b"v") for index in range(count)]
    elif shape == "empty-name":
        headers.insert(at, ("", _garbage(draw)))
    elif shape == "forged-position":
        name = draw(st.sampled_from((INPUTS_HEADER, POSITION_HEADER)))
        headers.insert(at, (name, draw(st.sampled_from(FORGED_POSITIONS))))
    elif shape == "big-value":
        size = draw(st.sampled_from((4 * 1024, 64 * 1024)))
        headers.insert(at, (draw(st.sampled_from(PLATFORM_HEADERS)), filler(size, salt + 1)))
    return shape, headers
