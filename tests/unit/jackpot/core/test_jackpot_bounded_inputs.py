"""Inputs the business does not allow are refused with a code, never fatal: a stake that is not one of the game's
stakes (2**49, negative), a breakage that is not a sub-cent remainder, a claim at such a stake. Pools stay put."""

from __future__ import annotations

import pytest

from shared.events import jackpot as jp

from tests.support.jackpot import Network, claim, contribute


def _levels(network: Network) -> dict[str, int]:
    return {pool_id: network.level_micro(pool_id) for pool_id in network.state.pools}


@pytest.mark.parametrize("stake_minor", [2**49, -100, 0, 101])
def test_a_contribution_at_a_stake_the_game_does_not_offer_is_refused_and_moves_no_pool(stake_minor):
    network = Network()
    network.send(contribute(stake_minor=100))
    before = _levels(network)
    forged_micro = 0 if stake_minor < 0 else None  # no rate gives a negative stake a contribution: the sender picks one
    outcome = network.send(contribute(stake_minor=stake_minor, contribution_micro=forged_micro))
    assert [letter.code for letter in outcome.dead_letters] == ["INVALID_STAKE"]
    assert outcome.events == ()
    assert _levels(network) == before


@pytest.mark.parametrize("breakage_micro", [-1, 1_000_000, 2**62])
def test_a_breakage_that_is_not_a_sub_cent_remainder_is_refused(breakage_micro):
    network = Network()
    outcome = network.send(contribute(stake_minor=100, breakage_micro=breakage_micro))
    assert [letter.code for letter in outcome.dead_letters] == ["INVALID_BREAKAGE"]
    assert not network.of_type(jp.ContributionsApplied)


def test_the_largest_sub_cent_breakage_is_still_applied():
    network = Network()
    outcome = network.send(contribute(stake_minor=100, breakage_micro=999_999))
    assert outcome.dead_letters == ()
    assert len(network.of_type(jp.ContributionsApplied)) == 1


def test_five_huge_contributions_cannot_overflow_a_pool_and_the_service_keeps_deciding():
    network = Network()
    outcome = network.send(*[contribute(stake_minor=2**49) for _ in range(5)], contribute(stake_minor=100))
    assert [letter.code for letter in outcome.dead_letters] == ["INVALID_STAKE"] * 5
    assert len(network.of_type(jp.ContributionsApplied)) == 1


def test_a_claim_at_a_stake_the_game_does_not_offer_is_rejected_with_a_code():
    network = Network()
    network.send(contribute(stake_minor=100))
    network.send(claim(tier="green", stake_minor=2**49))
    (rejected,) = network.of_type(jp.ClaimRejected)
    assert rejected.code == "INVALID_STAKE"
    assert not network.of_type(jp.JackpotWon)
