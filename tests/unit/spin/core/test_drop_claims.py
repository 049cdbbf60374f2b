"""A spin on a network with a must-drop pool (pools-v2) waits for the jackpot's answer to its drop claim before
it settles: the one settlement carries the drop award when the wager dropped the pool, nothing from it otherwise."""

import pytest

from shared.events import broker_time
from shared.events.jackpot import Claim, Contribute
from shared.events.spin import SpinSettled
from shared.events.wallet import DebitWager, PlaceWager, SettleWager
from shared.pools import POOLS_VERSION_ENV, drop_claim_id

from tests.support.spin import NO_CLAIM, NOW_MS, Seeds, claim_refused_for, debited_for, fact, make_context, one
from tests.support.spin import request, request_bytes, settled_for, spin_core, won_for

NOW = broker_time(NOW_MS)


@pytest.fixture
def drop_network(monkeypatch):
    monkeypatch.setenv(POOLS_VERSION_ENV, "pools-v2")


def _debited():
    """Given nothing, a spin's request and its debit: its id, the spin (gwt) and the debit's decision."""
    request_id, raw = request_bytes(stake=100)
    given = spin_core(make_context(Seeds(NO_CLAIM))).given()
    asked = given.when(request(raw), NOW)
    return request_id, given, given.when(fact(debited_for(one(asked.decision.commands, DebitWager))), NOW)


def test_the_spin_sends_its_drop_claim_after_the_contribution_and_waits(drop_network):
    request_id, _, debited = _debited()
    debited.then().then_commands(Contribute, Claim).then_answers()
    claim = debited.decision.commands[1].data
    assert (claim.tier, claim.claim_id) == ("drop", drop_claim_id(request_id, "dm-drop"))
    assert claim.request_id == request_id


def test_the_one_settlement_carries_the_drop_award(drop_network):
    _, given, debited = _debited()
    won, _ = won_for(one(debited.decision.commands, Claim), amount_minor=100_012)
    settle = one(given.when(fact(won), NOW).decision.commands, SettleWager)
    assert settle.data.jackpot_win_minor == 100_012
    settled = one(given.when(fact(settled_for(settle)), NOW).decision.answers, SpinSettled).data
    assert [(a.tier, a.amount_minor) for a in settled.jackpot_awards] == [("drop", 100_012)]
    assert settled.win_minor == settled.house_win_minor + 100_012


def test_a_wager_that_did_not_drop_the_pool_settles_without_it(drop_network):
    _, given, debited = _debited()
    refused, _ = claim_refused_for(one(debited.decision.commands, Claim))
    settle = one(given.when(fact(refused), NOW).decision.commands, SettleWager)
    assert settle.data.jackpot_win_minor == 0


def test_without_must_drop_pools_nothing_changes():
    _, raw = request_bytes(stake=100)
    asked = spin_core(make_context(Seeds(NO_CLAIM))).given().when(request(raw), NOW)
    asked.then_commands(PlaceWager)  # no claim to wait for: debit and settlement in one
