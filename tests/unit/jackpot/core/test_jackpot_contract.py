"""The jackpot core as specifications: given a partition's events, when one message is decided, then its Decision."""

from __future__ import annotations

from shared.decision import Message, Undecodable
from shared.events import DecodeError, broker_time
from shared.events import jackpot as jp
from shared.pools import drop_claim_id

from tests.support.gwt import data_of
from tests.support.jackpot import DIAMOND, T0_MS, contribute, incoming, jackpot_core
from tests.support.mustdrop import drop_pools, secrets

NOW = broker_time(T0_MS)


def test_a_first_contribution_opens_the_pools_then_applies_it():
    core = jackpot_core()
    opened = [jp.PoolOpened] * len(DIAMOND.pools)
    core.given().when(incoming(contribute(), T0_MS), NOW).then(*opened, jp.ContributionsApplied)


def test_given_a_contribution_its_repeat_is_counted_and_changes_nothing():
    core = jackpot_core()
    first = incoming(contribute(), T0_MS)
    events = core.given().when(first, NOW).decision.events
    again = core.given(*events).when(first, NOW).then()
    assert again.decision.repeats == 1


def test_a_contribution_with_a_stake_the_game_does_not_offer_is_dead_lettered():
    core = jackpot_core()
    opened = [jp.PoolOpened] * len(DIAMOND.pools)
    core.given().when(incoming(contribute(stake_minor=7), T0_MS), NOW).then(*opened).then_dead_letters("INVALID_STAKE")


def test_a_command_for_a_network_the_deployment_does_not_run_is_the_cores_refusal():
    core = jackpot_core()
    unknown = contribute().model_copy(update={"network_id": "no-such-network"})
    then = core.given().when(incoming(unknown, T0_MS), NOW).then().then_dead_letters("UNKNOWN_NETWORK")
    assert then.state == {}


def test_a_record_that_does_not_decode_is_refused_with_its_field():
    core = jackpot_core()
    broken = Undecodable(DecodeError("data.stake_minor", "not an integer"), None, ("jackpot.internal", 0, 7))
    then = core.given().when(Message(broken, T0_MS), NOW).then().then_dead_letters("UNDECODABLE")
    assert then.decision.dead_letters[0].field == "data.stake_minor"


def test_given_the_events_before_it_a_contribution_is_applied_at_the_levels_they_left():
    core = jackpot_core()
    before = core.given().when(incoming(contribute(stake_minor=100), T0_MS), NOW).decision.events
    then = (
        core.given(*before).when(incoming(contribute(stake_minor=2000), T0_MS + 1), NOW).then(jp.ContributionsApplied)
    )
    (applied,) = data_of(then.decision, jp.ContributionsApplied)
    green = next(m for m in applied.movements if m.pool_id == "dm-green")
    assert (
        green.opening_micro == then.state[DIAMOND.network_id].pools["dm-green"].level_micro - green.contributions_micro
    )
    assert [c.stake_minor for c in applied.contributions] == [2000]


def test_given_a_must_drop_pool_one_short_of_its_point_the_contribution_that_crosses_it_wins_alone():
    pools = drop_pools()
    diamond = pools.network("diamond-mystery")
    core = jackpot_core(diamond, secrets())
    given, now_ms, crossing = core.given(), T0_MS, None
    while crossing is None:  # 2 cents each into dm-drop until one crosses the committed point
        now_ms += 1
        decision = given.when(incoming(contribute(diamond, stake_minor=2000), now_ms), broker_time(now_ms)).decision
        if data_of(decision, jp.DropRevealed):
            crossing = decision
    kinds = [type(event.data) for event in crossing.events]
    assert kinds[kinds.index(jp.ContributionsApplied) :][:3] == [
        jp.ContributionsApplied,
        jp.JackpotWon,
        jp.DropRevealed,
    ]
    (applied,) = data_of(crossing, jp.ContributionsApplied)
    (won,) = [w for w in data_of(crossing, jp.JackpotWon) if w.pool_id == "dm-drop"]
    (revealed,) = data_of(crossing, jp.DropRevealed)
    assert won.claim_id == drop_claim_id(applied.contributions[0].contribution_id, "dm-drop") == revealed.claim_id
    assert revealed.contribution_id == applied.contributions[0].contribution_id
