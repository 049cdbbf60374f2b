"""Contributions: every wager's share lands exactly once in its pools, one event a contribution (the loop packs runs of
them: tests/unit/shared/test_packing.py), with balanced movements."""

import uuid

from shared.events import derived_id
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR

from tests.support.jackpot import DIAMOND, STJERNE, Network, contribute
from services.jackpot.core.payout import split_contribution


def seed_micro(network, pool_id):
    return network.pool(pool_id).seed_minor * MICRO_PER_MINOR


def test_pools_open_at_their_operator_funded_seed_on_first_use():
    network = Network(STJERNE)
    network.send(contribute(STJERNE, stake_minor=50))
    opened = network.of_type(jp.PoolOpened)
    assert [event.pool_id for event in opened] == ["sn-jackpot", "sn-supernova"]
    assert all(event.movement.seeds_micro == event.seed_micro == seed_micro(STJERNE, event.pool_id) for event in opened)


def test_each_contribution_of_a_run_is_applied_by_its_own_event_in_order_and_their_movements_add_up():
    network = Network()
    outcome = network.send(*[contribute(stake_minor=stake) for stake in (10, 50, 2000)])
    applied = [event.data for event in outcome.events if isinstance(event.data, jp.ContributionsApplied)]
    assert [[c.stake_minor for c in event.contributions] for event in applied] == [[10], [50], [2000]]
    assert all(movement.balanced() for event in applied for movement in event.movements)
    assert sum(m.contributions_micro for event in applied for m in event.movements) == DIAMOND.wager_contribution_micro(
        2060
    )
    diamond = [next(m for m in event.movements if m.pool_id == "dm-diamond") for event in applied]
    assert [m.opening_micro for m in diamond[1:]] == [m.closing_micro for m in diamond[:-1]]
    assert network.level_micro("dm-diamond") == seed_micro(DIAMOND, "dm-diamond") + 4000 * 2060


def test_a_contributions_event_keeps_the_id_a_run_of_one_had():
    # Events decided before the seam named their run (first, last, length): a single contribution's id is unchanged.
    network = Network()
    wager = contribute(stake_minor=10)
    (applied,) = [e for e in network.send(wager).events if isinstance(e.data, jp.ContributionsApplied)]
    cid = wager.contribution_id
    assert applied.id == derived_id(DIAMOND.network_id, "contributions-applied", cid, cid, 1)


def test_half_a_percent_of_fifty_oere_a_million_times_is_exact():
    # 0.47 % of 50 øre is 0.235 øre: the pools carry every fraction, so a million wagers add exactly 2,350 kr.
    levels = [0, 0]
    for _ in range(1_000_000):
        for index, part in enumerate(split_contribution(STJERNE.pools, 50, 0)):
            levels[index] += part
    assert levels == [150_000 * MICRO_PER_MINOR, 85_000 * MICRO_PER_MINOR]
    assert sum(levels) == 235_000 * MICRO_PER_MINOR


def test_many_tiny_contributions_through_the_handler_carry_every_remainder():
    network = Network(STJERNE)
    for _ in range(20):
        network.send(*[contribute(STJERNE, stake_minor=50) for _ in range(500)])
    # 10,000 x 0.235 øre = 2,350 øre exactly; the Jackpot pool holds 10,000 x 0.15 øre = 1,500 øre on top of its seed.
    assert network.level_micro("sn-jackpot") == seed_micro(STJERNE, "sn-jackpot") + 1_500 * MICRO_PER_MINOR
    assert network.level_micro("sn-supernova") == seed_micro(STJERNE, "sn-supernova") + 850 * MICRO_PER_MINOR


def test_rising_joker_breakage_is_added_to_the_pools_by_their_rates():
    network = Network()
    network.send(contribute(stake_minor=10, breakage_micro=500_000))
    applied = network.of_type(jp.ContributionsApplied)[0]
    assert applied.contributions[0].amount_micro == DIAMOND.wager_contribution_micro(10) + 500_000
    assert applied.contributions[0].breakage_micro == 500_000
    assert sum(m.contributions_micro for m in applied.movements) == DIAMOND.wager_contribution_micro(10) + 500_000


def test_a_repeated_contribution_id_changes_nothing():
    network = Network()
    first = contribute(stake_minor=100)
    network.send(first)
    levels = {pool_id: pool.level_micro for pool_id, pool in network.state.pools.items()}
    outcome = network.send(first, first)
    assert outcome.events == ()
    assert outcome.repeats == 2
    assert {pool_id: pool.level_micro for pool_id, pool in network.state.pools.items()} == levels


def test_a_repeat_inside_the_same_batch_is_counted_once():
    network = Network()
    wager = contribute(stake_minor=100)
    outcome = network.send(wager, wager)
    assert outcome.repeats == 1
    assert len(network.of_type(jp.ContributionsApplied)[0].contributions) == 1


def test_a_contribution_id_reused_with_another_stake_is_a_dead_letter():
    network = Network()
    wager_id = uuid.uuid4()
    network.send(contribute(stake_minor=100, contribution_id=wager_id))
    outcome = network.send(contribute(stake_minor=200, contribution_id=wager_id))
    assert [letter.code for letter in outcome.dead_letters] == ["DUPLICATE_CONFLICT"]
    assert outcome.events == ()


def test_a_contribution_that_disagrees_with_the_rates_is_a_dead_letter_not_a_guess():
    network = Network()
    outcome = network.send(contribute(stake_minor=100, contribution_micro=1))
    assert [letter.code for letter in outcome.dead_letters] == ["CONTRIBUTION_MISMATCH"]
    assert network.of_type(jp.ContributionsApplied) == []


def test_operator_liability_follows_its_wagers():
    network = Network()
    network.send(contribute(stake_minor=100, operator_id="op-a"), contribute(stake_minor=300, operator_id="op-b"))
    liability = network.state.liability_by_operator
    assert liability["op-a"].contributed_micro == DIAMOND.wager_contribution_micro(100)
    assert liability["op-b"].contributed_micro == DIAMOND.wager_contribution_micro(300)
