"""The seam of an incremental audit: an audit of the history up to a cut writes a seam, and an audit of the tail that
continues from it finds exactly what one audit of the whole history finds.

Scenario: a synthetic history (deposits, spins over both games, contributions, wins, reseeds) with one kind of
discrepancy placed somewhere in it, before or after a random cut; the seam goes through its canonical bytes as a
checkpoint would; the tail's audit must report the same findings, balances, pool levels, RTP and totals as the
full audit, whether complete wagers are retired at the cut or carried, and however long ids are remembered for
redeliveries (at least the minute the seam keeps).
"""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.audit.core.audit import run_audit
from services.audit.core.collect import RawRecord
from services.audit.core.seam import SEEN_FOR_MS, SeamError, cut, decode_seam, digest, encode_seam
from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from shared.events import derived_id, encode, envelope
from shared.events import jackpot as jp
from shared.events import spin as sp
from shared.events import wallet as wl
from shared.records import headers_as_owner

import pytest

HISTORIES = {seed: play_history(seed=seed, players=3, spins_per_player=12).emitted for seed in (1, 2)}


def records(emitted: list[Emitted]) -> list[RawRecord]:
    offsets: dict[str, int] = {}
    out = []
    for item in emitted:
        offset = offsets.get(item.topic, 0)
        value = encode(item.envelope)
        headers = tuple(headers_as_owner(item.topic, "test"))
        out.append(RawRecord(item.topic, 0, offset, item.timestamp_ms, item.envelope.key, value, headers))
        offsets[item.topic] = offset + 1
    return out


def positions(read: list[RawRecord]) -> dict[tuple[str, int], int]:
    ends: dict[tuple[str, int], int] = {}
    for record in read:
        ends[(record.topic, record.partition)] = record.offset + 1
    return ends


def _restamped(item: Emitted, data, at: Emitted, new_id: bool = False) -> Emitted:
    """`data` as an event of `item`'s topic written at `at`'s time (a new id when `new_id`)."""
    event_id = uuid.uuid4() if new_id else item.envelope.id
    message = envelope(data, source=item.envelope.source, time=at.envelope.time, id=event_id)
    return Emitted(item.topic, message, at.timestamp_ms)


def _first(emitted: list[Emitted], kind: type, start: int) -> int:
    return next(i for i in range(start, len(emitted)) if isinstance(emitted[i].envelope.data, kind))


def tampered(emitted: list[Emitted], kind: str, where: int) -> list[Emitted]:
    """The history with one discrepancy placed at or after position `where`."""
    out = list(emitted)
    if kind == "none":
        return out
    if kind == "edited-outcome":
        i = _first(out, sp.SpinSettled, where)
        data = out[i].envelope.data
        out[i] = _restamped(out[i], data.model_copy(update={"outcome": {**data.outcome, "board": [9, 9, 9]}}), out[i])
    elif kind == "second-settlement":
        i = _first(out, wl.WagerSettled, where)
        data = out[i].envelope.data
        again = data.model_copy(update={"transaction_id": derived_id(data.transaction_id, "again")})
        out.insert(i + 1, _restamped(out[i], again, out[i], new_id=True))
    elif kind == "forged-settlement":
        i = _first(out, wl.WagerSettled, where)
        data = out[i].envelope.data
        forged = data.model_copy(update={"wager_id": uuid.uuid4(), "transaction_id": uuid.uuid4()})
        out.insert(i + 1, _restamped(out[i], forged, out[i], new_id=True))
    elif kind == "id-reused":
        i = _first(out, wl.WagerDebited, where)
        data = out[i].envelope.data
        other = {"rising-joker": "stjernestoev", "stjernestoev": "rising-joker"}[data.game]
        out.insert(min(len(out), i + 7), _restamped(out[i], data.model_copy(update={"game": other}), out[i]))
    elif kind == "pool-identity":
        i = _first(out, jp.ContributionsApplied, where)
        data = out[i].envelope.data
        first = data.movements[0].model_copy(update={"closing_micro": data.movements[0].closing_micro + 1})
        out[i] = _restamped(out[i], data.model_copy(update={"movements": (first, *data.movements[1:])}), out[i])
    elif kind == "forged-spin":
        i = _first(out, sp.SpinSettled, where)
        forged = out[i].envelope.data.model_copy(update={"request_id": uuid.uuid4()})
        out.insert(i + 1, _restamped(out[i], forged, out[i], new_id=True))
    elif kind == "redelivery":
        i = _first(out, wl.WagerSettled, where)
        out.insert(min(len(out), i + 4), out[i])
    elif kind == "open-wager":
        i = _first(out, wl.WagerDebited, where)
        debit = out[i].envelope.data.model_copy(update={"transaction_id": uuid.uuid4()})
        out.insert(i + 1, _restamped(out[i], debit, out[i], new_id=True))
    return out


KINDS = (
    "none",
    "edited-outcome",
    "second-settlement",
    "forged-settlement",
    "id-reused",
    "pool-identity",
    "forged-spin",
    "redelivery",
    "open-wager",
)


def findings(result) -> list[dict]:
    return sorted((d.as_json() for d in result.discrepancies), key=lambda d: sorted(d.items()))


def audit_across_a_cut(read: list[RawRecord], at: int, retire_after_ms: int, seen_for_ms: int = SEEN_FOR_MS):
    prefix = run_audit(read[:at], lookup=stand_in_lookup)
    body = encode_seam(cut(prefix, positions(read[:at]), seen_for_ms, retire_after_ms))
    return run_audit(read[at:], lookup=stand_in_lookup, seam=decode_seam(body)), body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(HISTORIES)),
    kind=st.sampled_from(KINDS),
    place=st.floats(0, 0.9),
    cut_at=st.floats(0, 1),
    retire_after_ms=st.sampled_from([0, 10**12]),
    seen_for_ms=st.sampled_from([SEEN_FOR_MS, 10**12]),
)
def test_an_audit_of_the_tail_from_a_seam_finds_what_the_full_audit_finds(
    seed, kind, place, cut_at, retire_after_ms, seen_for_ms
):
    emitted = HISTORIES[seed]
    read = records(tampered(emitted, kind, int(place * len(emitted))))
    full = run_audit(read, lookup=stand_in_lookup)
    tail, _ = audit_across_a_cut(read, int(cut_at * len(read)), retire_after_ms, seen_for_ms)
    assert findings(tail) == findings(full)
    assert (kind in ("none", "redelivery")) == (full.discrepancies == [])
    assert +tail.ledger.balances_micro == +full.ledger.balances_micro
    assert {k: p.level_micro for k, p in tail.pools.pools.items()} == {
        k: p.level_micro for k, p in full.pools.pools.items()
    }
    assert {g: (s.spins, s.return_micro) for g, s in tail.rtp.items()} == {
        g: (s.spins, s.return_micro) for g, s in full.rtp.items()
    }
    assert tail.totals == full.totals
    assert tail.jackpots.in_flight == full.jackpots.in_flight


def test_a_wager_debited_before_the_cut_and_settled_after_it_is_matched():
    emitted = HISTORIES[1]
    read = records(emitted)
    settlement = next(i for i, item in enumerate(emitted) if isinstance(item.envelope.data, wl.WagerSettled))
    tail, body = audit_across_a_cut(read, settlement, retire_after_ms=0)
    assert tail.discrepancies == []
    wager_id = str(emitted[settlement].envelope.data.wager_id)
    assert wager_id.encode() in body, "the open wager crosses the seam"
    assert tail.ledger.wagers[wager_id].settlement is not None


def test_complete_wagers_are_retired_from_the_seam():
    read = records(HISTORIES[2])
    prefix = run_audit(read, lookup=stand_in_lookup)
    everything = cut(prefix, positions(read), retire_after_ms=10**12)
    retired = cut(prefix, positions(read), seen_for_ms=0)
    assert len(everything.ledger.wagers) == len(prefix.ledger.wagers) == 36
    # every wager of a finished history is complete: only the last one, written at the cut's instant, stays
    assert list(retired.ledger.wagers) == [str(HISTORIES[2][-1].envelope.data.request_id)]
    assert retired.ledger.balances_micro == everything.ledger.balances_micro
    assert len(encode_seam(retired)) < len(encode_seam(everything)) / 5


def test_a_seam_encodes_canonically_and_refuses_another_format():
    read = records(HISTORIES[1])
    seam = cut(run_audit(read, lookup=stand_in_lookup), positions(read))
    body = encode_seam(seam)
    assert encode_seam(decode_seam(body)) == body
    assert digest(body) == digest(encode_seam(decode_seam(body)))
    with pytest.raises(SeamError, match="format"):
        decode_seam(body.replace(b"reelstream.audit.seam.v1", b"reelstream.audit.seam.v9"))
    with pytest.raises(SeamError, match="unreadable"):
        decode_seam(body[: len(body) // 2])
