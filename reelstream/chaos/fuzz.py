"""Hostile records for every input topic, as hypothesis strategies: what a tester writing to the topics would try.

Each strategy draws a `Hostile(topic, key, value, headers)`: bytes that are not UTF-8 or not JSON, JSON that is not an
object, valid messages with a field dropped, added or retyped (strings, floats, NaN, booleans, integers at and past
the signed 64-bit bounds), unknown games, currencies, networks and tiers, forged, expired, empty or non-ASCII session
tokens, oversized payloads, and records on a service's own topic or internal commands written by someone else. None
of them may change a balance or a pool, stop a service or make a restore fail.

The writer id is never the trusted writer of the topic or command: a record that the trusted writer really wrote is
a compromised principal's, which the trust boundary (docs/security.md) and the audit catch, not the input checks.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import orjson
from hypothesis import strategies as st

from shared.events import envelope
from shared.events import jackpot as jp
from shared.events.spin import SpinRequested
from shared.events.wallet import Deposit, DebitWager, SettleWager, Withdraw
from shared.records import headers_for

WRITER = "fuzzer"
INT64_EDGES = (2**63 - 1, -(2**63), 2**63, 2**64, 2**49, -1, 0)
HUGE = (2**63 - 1, 2**49, 10**12, -(10**12))  # amounts the models accept and no business allows
ODD_VALUES = ("text", 1.5, True, None, [], {}, "été", "x" * 300)
# How often each kind is drawn (a ~0.9 MB record once in 200: enough to cross the size guard, not to flood the log).
SHAPES = ("bytes",) * 2 + ("not-object",) * 2 + ("mutated",) * 8 + ("internal",) * 2
NOT_OBJECTS = (b"[1, 2, 3]", b"42", b'"a string"', b"null", b"true", b"[[[[[[[[[[]]]]]]]]]]")


@dataclass(frozen=True)
class Hostile:
    topic: str  # logical name: the caller adds the deployment's prefix
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]]


def _valid(topic: str, player_id: str, now: datetime) -> dict[str, Any]:
    """A well-formed message of the topic as a JSON-ready dict, to be broken by a mutation."""
    request_id = uuid.uuid4()
    by_topic = {
        "spin.requests": SpinRequested(
            request_id=request_id,
            player_id=player_id,
            game="rising-joker",
            stake_minor=10,
            currency="EUR",
            session_token="v1.x.1.y",
        ),
        "wallet.commands": Withdraw(transaction_id=request_id, player_id=player_id, amount_minor=10, currency="EUR"),
        "jackpot.commands": jp.Claim(
            network_id="diamond-mystery",
            claim_id=request_id,
            request_id=request_id,
            player_id=player_id,
            game="rising-joker",
            tier="green",
            currency="EUR",
            stake_minor=10,
        ),
    }
    by_topic["jackpot.internal"] = by_topic["jackpot.commands"]  # a claim: the spin's to send, on either topic
    data = by_topic.get(topic) or DebitWager(
        transaction_id=request_id, player_id=player_id, amount_minor=10, currency="EUR", game="rising-joker"
    )
    return envelope(data, source="fuzzer", time=now).model_dump(mode="json", exclude_none=True)


def _internal(topic: str, player_id: str, now: datetime, huge: int) -> dict[str, Any]:
    """An internal command or a service's own fact, well formed, with an amount no honest writer would send."""
    wager = uuid.uuid4()
    if topic in ("jackpot.commands", "jackpot.internal"):
        data: Any = jp.Contribute(
            network_id="diamond-mystery",
            contribution_id=wager,
            game="rising-joker",
            currency="EUR",
            stake_minor=huge,
            contribution_micro=huge,
            player_id=player_id,
        )
    elif topic in ("wallet.commands", "wallet.internal"):
        data = SettleWager(
            transaction_id=uuid.uuid4(),
            player_id=player_id,
            wager_id=wager,
            currency="EUR",
            house_win_minor=huge,
            jackpot_win_minor=0,
            breakage_micro=0,
            contribution_micro=0,
            network_id="diamond-mystery",
        )
    else:
        data = Deposit(transaction_id=wager, player_id=player_id, amount_minor=huge, currency="EUR")
    return envelope(data, source="fuzzer", time=now).model_dump(mode="json", exclude_none=True)


@st.composite
def _mutated(draw, topic: str, player_id: str, now: datetime) -> bytes:
    message = _valid(topic, player_id, now)
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
    return json.dumps(message).encode()  # the stdlib writes integers past 64 bits too


def hostile(topics: tuple[str, ...], players: tuple[str, ...], now: datetime | None = None) -> st.SearchStrategy:
    """One hostile record for one of `topics`, keyed by one of `players` (or by nothing, or by garbage)."""
    moment = now or datetime.now(timezone.utc)

    @st.composite
    def one(draw) -> Hostile:
        topic = draw(st.sampled_from(topics))
        player_id = draw(st.sampled_from(players))
        shape = "big" if draw(st.integers(0, 199)) == 0 else draw(st.sampled_from(SHAPES))
        if shape == "bytes":
            value = draw(st.binary(min_size=1, max_size=64).filter(lambda raw: not raw.startswith(b"{")))
        elif shape == "not-object":
            value = draw(st.sampled_from(NOT_OBJECTS))
        elif shape == "internal":
            value = orjson.dumps(_internal(topic, player_id, moment, draw(st.sampled_from(HUGE))))
        elif shape == "big":
            value = b'{"type": "' + b"x" * 900_000 + b'"}'
        else:
            value = draw(_mutated(topic, player_id, moment))
        key = draw(st.sampled_from((player_id.encode(), None, b"\xff\xfe", b"other-player")))
        return Hostile(topic, key, value, headers_for(WRITER))

    return one()
