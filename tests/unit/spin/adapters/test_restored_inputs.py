"""Where a restored spin partition resumes its inputs (shared/snapshots.py: Restoration.inputs): the
snapshot manifest's positions, then the further of those and the positions each folded journal fact or answer
carries (shared/input_position.py: INPUTS_HEADER). Only records the spin service wrote count: a forged record with
the header is quarantined and moves nothing, and a record carrying older positions never moves one back."""

from __future__ import annotations

import asyncio

import pytest

from services.spin.adapters import rebuild
from services.spin.adapters.answers import Partition
from services.spin.core.book import SpinBook
from shared import records, signing
from shared.input_position import INPUTS_HEADER
from shared.topics import SPIN_JOURNAL
from tests.support.spin import NOW_MS, Record, handle_request, make_context, request_bytes


pytestmark = pytest.mark.usefixtures("keys")  # every test signs and checks with real keys (tests/conftest.py)


def _carrying(value: bytes, offset: int, positions: str | None, signed_by: str | None = "spin") -> Record:
    """A journal record at `offset` carrying `positions` ("topic=offset;..."), signed by `signed_by` (None: none)."""
    extra = [(INPUTS_HEADER, positions.encode())] if positions is not None else []
    headers = records.headers_for(signed_by or "spin", extra)
    if signed_by is not None:
        headers = signing.sign_one(signed_by, SPIN_JOURNAL, b"p-1", value, headers)
    return Record(SPIN_JOURNAL, 0, offset, b"p-1", value, NOW_MS + offset, tuple(headers))


def _journal_facts(count: int) -> list[bytes]:
    """`count` journal facts the spin would write (each request's acceptance and seed)."""
    book, ctx, facts = SpinBook(), make_context(), []
    for offset in range(count):
        _, raw = request_bytes(player="p-1", time_ms=NOW_MS + offset)
        effects = handle_request(book, ctx, raw, b"p-1", NOW_MS + offset, 0, offset)
        facts += [out.value for out in effects.journal]
        book = SpinBook()  # a fresh player each time: every request is accepted
    return facts[:count]


def _fold(records_: list[Record], starting: dict[str, int]) -> dict[str, int]:
    inputs = dict(starting)
    catalog = make_context().catalog
    asyncio.run(rebuild.fold_records(Partition(), catalog, {SPIN_JOURNAL: records_}, inputs))
    return inputs


def test_the_manifests_positions_advance_to_the_further_of_each_and_what_the_spins_records_carry():
    first, second, third = _journal_facts(3)
    manifest = {"spin.requests": 10, "wallet.events": 4, "spin.jackpot-answers": 0}
    folded = [
        _carrying(first, 0, "spin.requests=12;wallet.events=4;spin.jackpot-answers=0"),
        _carrying(second, 1, None),  # a fact that carries none (not its transaction's last)
        _carrying(third, 2, "spin.requests=11;wallet.events=6;spin.jackpot-answers=0"),  # requests: never back
    ]
    assert _fold(folded, manifest) == {"spin.requests": 12, "wallet.events": 6, "spin.jackpot-answers": 0}
    assert _fold([], manifest) == manifest, "nothing after the snapshot: its manifest's positions"


def test_a_record_the_spin_did_not_write_moves_no_position():
    (fact,) = _journal_facts(1)
    manifest = {"spin.requests": 10}
    forged = [
        _carrying(fact, 0, "spin.requests=999", signed_by="wallet"),
        _carrying(fact, 1, "spin.requests=998", None),
    ]
    assert _fold(forged, manifest) == manifest
