"""A spin on a network with a must-drop pool (pools-v2) waits for the jackpot's answer to its drop claim before
it settles: the one settlement carries the drop award when the wager dropped the pool, nothing from it otherwise."""

import pytest

from services.spin.core.book import SpinBook
from shared.pools import POOLS_VERSION_ENV, drop_claim_id

from tests.support.spin import (
    NO_CLAIM,
    NOW_MS,
    Seeds,
    claim_refused_for,
    debited_for,
    decoded,
    handle_event,
    handle_request,
)
from tests.support.spin import make_context, only, request_bytes, settled_for, won_for


@pytest.fixture
def drop_network(monkeypatch):
    monkeypatch.setenv(POOLS_VERSION_ENV, "pools-v2")


def _debited(book, ctx):
    request_id, raw = request_bytes(stake=100)
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    return request_id, handle_event(book, ctx, debited_for(only(asked.outputs, "debit")), NOW_MS)


def test_the_spin_sends_its_drop_claim_after_the_contribution_and_waits(drop_network):
    book, ctx = SpinBook(), make_context(Seeds(NO_CLAIM))
    request_id, effects = _debited(book, ctx)
    assert [out.kind for out in effects.outputs] == ["contribute", "claim"]
    claim = decoded(only(effects.outputs, "claim"))
    assert (claim.tier, claim.claim_id) == ("drop", drop_claim_id(request_id, "dm-drop"))
    assert claim.request_id == request_id


def test_the_one_settlement_carries_the_drop_award(drop_network):
    book, ctx = SpinBook(), make_context(Seeds(NO_CLAIM))
    _, effects = _debited(book, ctx)
    won, raw = won_for(only(effects.outputs, "claim"), amount_minor=100_012)
    settle_out = only(handle_event(book, ctx, won, NOW_MS).outputs, "settle")
    assert decoded(settle_out).jackpot_win_minor == 100_012
    settled = decoded(only(handle_event(book, ctx, settled_for(settle_out), NOW_MS).outputs, "answer"))
    assert [(a.tier, a.amount_minor) for a in settled.jackpot_awards] == [("drop", 100_012)]
    assert settled.win_minor == settled.house_win_minor + 100_012


def test_a_wager_that_did_not_drop_the_pool_settles_without_it(drop_network):
    book, ctx = SpinBook(), make_context(Seeds(NO_CLAIM))
    _, effects = _debited(book, ctx)
    refused, raw = claim_refused_for(only(effects.outputs, "claim"))
    settle_out = only(handle_event(book, ctx, refused, NOW_MS).outputs, "settle")
    assert decoded(settle_out).jackpot_win_minor == 0


def test_without_must_drop_pools_nothing_changes():
    book, ctx = SpinBook(), make_context(Seeds(NO_CLAIM))
    _, raw = request_bytes(stake=100)
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    assert [out.kind for out in asked.outputs] == ["place"]  # no claim to wait for: debit and settlement in one
