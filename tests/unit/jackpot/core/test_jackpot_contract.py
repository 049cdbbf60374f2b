"""The jackpot core as specifications: given a network's events, when a batch is decided, then its events."""

from __future__ import annotations

from shared.events import broker_time
from shared.events import jackpot as jp

from tests.support.jackpot import DIAMOND, T0_MS, contribute, incoming, jackpot_core

NOW = broker_time(T0_MS)


def test_a_first_contribution_opens_the_pools_then_applies_it():
    core = jackpot_core()
    opened = [jp.PoolOpened] * len(DIAMOND.pools)
    core.given().when([incoming(contribute(), T0_MS)], NOW).then(*opened, jp.ContributionsApplied)


def test_given_a_contribution_its_repeat_is_counted_and_changes_nothing():
    core = jackpot_core()
    first = incoming(contribute(), T0_MS)
    events = core.given().when([first], NOW).decision.events
    again = core.given(*events).when([first], NOW).then()
    assert again.decision.repeats == 1


def test_a_contribution_with_a_stake_the_game_does_not_offer_is_dead_lettered():
    core = jackpot_core()
    opened = [jp.PoolOpened] * len(DIAMOND.pools)
    core.given().when([incoming(contribute(stake_minor=7), T0_MS)], NOW).then(*opened).then_dead_letters(
        "INVALID_STAKE"
    )
