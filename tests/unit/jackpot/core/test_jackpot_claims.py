"""Claims: one answer per claim in partition order, full-pool payout with reseed, proportional share with remainder."""

import uuid

from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR

from tests.support.jackpot import STJERNE, Network, admin, claim, contribute


def test_a_full_pool_win_pays_the_whole_level_rounded_down_and_the_operator_reseeds():
    network = Network(STJERNE)
    network.send(*[contribute(STJERNE, stake_minor=50) for _ in range(3)])  # + 3 x 0.15 øre on the Jackpot pool
    level_micro = network.level_micro("sn-jackpot")
    assert level_micro == 100_000 * MICRO_PER_MINOR + 450_000
    network.send(claim(STJERNE, tier="jackpot", stake_minor=50))
    (won,) = network.of_type(jp.JackpotWon)
    assert won.amount_minor == 100_000
    assert won.share_ppm == 1_000_000
    assert (won.level_before_micro, won.level_after_micro) == (level_micro, 450_000)
    (reseeded,) = network.of_type(jp.PoolReseeded)
    assert reseeded.seed_micro == 100_000 * MICRO_PER_MINOR - 450_000
    assert reseeded.cause_claim_id == won.claim_id
    assert network.level_micro("sn-jackpot") == 100_000 * MICRO_PER_MINOR
    assert won.movement.balanced()
    assert reseeded.movement.balanced()


def test_a_proportional_win_leaves_the_rest_in_the_pool_without_a_reseed_while_above_the_seed():
    network = Network()
    network.send(*[contribute(stake_minor=2000) for _ in range(9)])  # Green: 50 EUR seed + 9 x 3 cents
    level_micro = network.level_micro("dm-green")
    assert level_micro == 5027 * MICRO_PER_MINOR
    network.send(claim(tier="green", stake_minor=10))  # 0.5 % of 50.27 EUR is 25.135 cents
    (won,) = network.of_type(jp.JackpotWon)
    assert (won.share_ppm, won.amount_minor) == (5_000, 25)
    assert network.level_micro("dm-green") == level_micro - 25 * MICRO_PER_MINOR
    assert network.of_type(jp.PoolReseeded) == []


def test_a_proportional_win_that_leaves_the_level_below_the_seed_is_topped_up_to_the_seed():
    network = Network()
    network.send(contribute(stake_minor=2000))
    level_micro = network.level_micro("dm-red")
    network.send(claim(tier="red", stake_minor=200))  # 10 %
    (won,) = network.of_type(jp.JackpotWon)
    assert won.amount_minor == level_micro // 10 // MICRO_PER_MINOR
    assert won.level_after_micro == level_micro - won.amount_minor * MICRO_PER_MINOR
    (reseeded,) = network.of_type(jp.PoolReseeded)
    assert reseeded.movement.closing_micro == network.level_micro("dm-red") == 500_000 * MICRO_PER_MINOR


def test_a_claim_sees_every_contribution_ordered_before_it_in_the_same_batch():
    network = Network(STJERNE)
    outcome = network.send(
        contribute(STJERNE, stake_minor=10_000), claim(STJERNE, tier="supernova", stake_minor=10_000)
    )
    (won,) = network.of_type(jp.JackpotWon)
    assert won.level_before_micro == 1_000_000 * MICRO_PER_MINOR + 10_000 * 1_700
    kinds = [type(event.data).__name__ for event in outcome.events]
    assert kinds.index("ContributionsApplied") < kinds.index("JackpotWon") < kinds.index("PoolReseeded")


def test_of_two_simultaneous_claims_the_first_takes_the_level_and_the_second_what_the_reseed_left():
    network = Network(STJERNE)
    network.send(*[contribute(STJERNE, stake_minor=10_000) for _ in range(10)])
    level_micro = network.level_micro("sn-jackpot")
    first, second = claim(STJERNE, tier="jackpot", stake_minor=50), claim(STJERNE, tier="jackpot", stake_minor=10_000)
    network.send(first, second)
    won_first, won_second = network.of_type(jp.JackpotWon)
    assert (won_first.claim_id, won_second.claim_id) == (first.claim_id, second.claim_id)
    assert won_first.amount_minor == level_micro // MICRO_PER_MINOR
    assert won_second.level_before_micro == 100_000 * MICRO_PER_MINOR
    assert won_second.amount_minor == 100_000


def test_a_repeated_claim_re_emits_the_very_same_answer_and_pays_nothing_more():
    network = Network(STJERNE)
    winning = claim(STJERNE, tier="jackpot", stake_minor=50)
    first = network.send(winning)
    level_micro = network.level_micro("sn-jackpot")
    again = network.send(winning)
    paid = tuple(e for e in first.events if not isinstance(e.data, jp.PoolOpened))
    assert again.events == paid
    assert again.repeats == 1
    assert network.level_micro("sn-jackpot") == level_micro
    assert len(network.of_type(jp.JackpotWon)) == 2  # the same event twice: one id, one payout
    assert len({won.claim_id for won in network.of_type(jp.JackpotWon)}) == 1


def test_a_claim_id_reused_for_another_stake_is_a_dead_letter_not_a_second_answer():
    network = Network(STJERNE)
    claim_id = uuid.uuid4()
    network.send(claim(STJERNE, tier="jackpot", stake_minor=50, claim_id=claim_id))
    outcome = network.send(claim(STJERNE, tier="jackpot", stake_minor=100, claim_id=claim_id))
    assert [letter.code for letter in outcome.dead_letters] == ["DUPLICATE_CONFLICT"]
    assert outcome.events == ()


def test_a_claim_on_a_disabled_pool_is_rejected_and_the_pool_keeps_its_level():
    network = Network()
    network.send(admin(jp.DisablePool, "dm-blue"))
    level_micro = network.level_micro("dm-blue")
    outcome = network.send(claim(tier="blue", stake_minor=2000))
    (rejected,) = [event.data for event in outcome.events]
    assert isinstance(rejected, jp.ClaimRejected)
    assert rejected.code == "POOL_DISABLED"
    assert network.level_micro("dm-blue") == level_micro


def test_an_unknown_tier_is_rejected_with_a_code():
    network = Network()
    outcome = network.send(claim(tier="platinum", stake_minor=10))
    assert [event.data.code for event in outcome.events if isinstance(event.data, jp.ClaimRejected)] == ["UNKNOWN_TIER"]


def test_winners_and_payouts_are_booked_against_the_winners_operator():
    network = Network(STJERNE)
    network.send(claim(STJERNE, tier="jackpot", stake_minor=50, operator_id="op-b"))
    pool = network.state.pools["sn-jackpot"]
    assert pool.wins == 1
    assert pool.last_win.operator_id == "op-b"
    assert pool.last_win.amount_minor == 100_000
    assert network.state.liability_by_operator["op-b"].paid_micro == 100_000 * MICRO_PER_MINOR
