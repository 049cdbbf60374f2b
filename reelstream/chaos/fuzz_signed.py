"""The signature class of hostile records (hypothesis strategies): a real signature's headers on other bytes, one
signature header twice on a command signed with the writer's own key, a record signed with another writer's key
(docs/chaos.md, "The fuzzer")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import orjson
from hypothesis import strategies as st

from reelstream.chaos.fuzz_messages import ids_from, own_command, valid
from shared import operators, signing
from shared.records import headers_for, trusted_writer

Headers = list[tuple[str, bytes]]
# `shared.signing.sign_one`'s shape: (writer, logical topic, key, value, headers) -> the headers signed.
Signer = Callable[[str, str, bytes | None, bytes | None, Headers], Headers]
SIGNATURE_NAMES = tuple(sorted(signing.SIGNATURE_HEADERS))
Signed = tuple[str, bytes, bytes, Headers]  # shape, key, value, headers


@st.composite
def signed_copy(draw, topic: str, player_id: str, now: datetime, signer: Signer, salt: int) -> Signed:
    """(shape, key, value, headers): the headers of a record its trusted writer signed, on another record of the topic,
    with one of them repeated (same or other value) or all of them in another order."""
    ids = ids_from(salt, 4)
    original = valid(topic, player_id, now, ids[:2])
    key, value = original["subject"].encode(), orjson.dumps(original)
    writer = trusted_writer(topic, value) or "cashier"
    signed = signer(writer, topic, key, value, headers_for(writer))
    forged = orjson.dumps(valid(topic, player_id, now, ids[2:]))
    headers = list(signed)
    if draw(st.booleans()) or len(headers) < 2:
        name, value = headers[draw(st.integers(0, len(headers) - 1))]
        other = value if draw(st.booleans()) else value[::-1] + b"x"
        headers.insert(draw(st.integers(0, len(headers))), (name, other))
        return f"signed-copy/repeated {name}", key, forged, headers
    order = draw(st.permutations(range(len(headers))).filter(lambda p: list(p) != sorted(p)))
    return "signed-copy/reordered", key, forged, [headers[i] for i in order]


@st.composite
def signed_twice(draw, topic: str, writer: str, player_id: str, now: datetime, signer: Signer, salt: int) -> Signed:
    """(shape, key, value, headers): a command `writer` may send, signed with its own key, plus a second copy of one
    signature header taken from another writer's signature, before or after its own."""
    others = [name for name in signing.WRITERS if name != writer]
    other = draw(st.sampled_from(sorted(others)))
    operator_id = draw(st.sampled_from((None, *operators.OPERATORS)))
    amount = draw(st.integers(1, 99))
    message = orjson.dumps(own_command(topic, player_id, now, amount, operator_id, ids_from(salt, 2)))
    key = orjson.loads(message)["subject"].encode()
    headers = list(signer(writer, topic, key, message, headers_for(writer)))
    theirs = dict(signer(other, topic, key, message, headers_for(other)))
    name = draw(st.sampled_from(SIGNATURE_NAMES))
    conflicting = (name, theirs.get(name, b"forged"))
    first = draw(st.booleans())
    headers = [conflicting, *headers] if first else [*headers, conflicting]
    return f"signed-twice/{name} {'first' if first else 'last'} ({other})", key, message, headers


@st.composite
def foreign_signed(draw, topic: str, player_id: str, now: datetime, signer: Signer, salt: int) -> Signed:
    """(shape, key, value, headers): a well-formed record of the topic signed with the key of a writer other than the
    one that alone may write it, its writer id naming the owner or the signer."""
    message = orjson.dumps(valid(topic, player_id, now, ids_from(salt, 2)))
    key = orjson.loads(message)["subject"].encode()
    owner = trusted_writer(topic, message)
    other = draw(st.sampled_from(sorted(name for name in signing.WRITERS if name != owner)))
    claimed = draw(st.sampled_from((owner or other, other)))
    headers = list(signer(other, topic, key, message, headers_for(claimed)))
    return f"foreign-signed/{other} as {claimed}", key, message, headers
