"""The skewed-broker run's plan and verdict (pure): who leads what, which players each group has, and what fails."""

from __future__ import annotations

from dataclasses import replace

from bench import skew_plan
from bench.skew_plan import AHEAD, OPENING_EXPIRED, Observed, failures, past_window
from shared.config import DEDUP_WINDOW_MS
from shared.partitioning import partition_for
from shared.topics import ALL_TOPICS, JACKPOT_INTERNAL, PLAYER_PARTITIONS, SPIN_REQUESTS, WALLET_EVENTS, WALLET_INTERNAL

SKEW_S = 3660
WINDOW_S = DEDUP_WINDOW_MS / 1000


def _leaders(topic: str, partitions: int) -> dict[int, int]:
    return {p: replicas[0] for p, replicas in skew_plan.assignment(topic, partitions, 3, (1, 2)).items()}


def test_the_skewed_node_leads_the_internal_command_partitions_and_half_of_the_requests():
    assert set(_leaders(WALLET_INTERNAL, PLAYER_PARTITIONS).values()) == {3}
    assert set(_leaders(JACKPOT_INTERNAL, 2).values()) == {3}
    requests = _leaders(SPIN_REQUESTS, PLAYER_PARTITIONS)
    assert [p for p, leader in requests.items() if leader == 3] == list(AHEAD)


def test_the_spins_inputs_that_date_closing_commands_are_led_by_nodes_on_time():
    assert 3 not in _leaders(WALLET_EVENTS, PLAYER_PARTITIONS).values()


def test_every_partition_of_every_topic_has_three_distinct_replicas():
    for spec in ALL_TOPICS:
        for replicas in skew_plan.assignment(spec.name, spec.partitions, 3, (1, 2)).values():
            assert sorted(replicas) == [1, 2, 3]


def test_players_land_on_their_groups_partitions_and_one_winner_is_on_each_ahead_partition():
    group = skew_plan.players(2)
    assert {partition_for(p.encode(), PLAYER_PARTITIONS) for p in group.ahead} == set(AHEAD)
    assert {partition_for(p.encode(), PLAYER_PARTITIONS) for p in group.opening_expired} == set(OPENING_EXPIRED)
    assert len(group.ahead) == len(group.opening_expired) == 6
    assert sorted(partition_for(p.encode(), PLAYER_PARTITIONS) for p in group.winners) == list(AHEAD)
    assert set(group.winners) <= set(group.ahead)


def test_only_the_ahead_groups_clients_date_their_requests_by_the_skewed_clock():
    group = skew_plan.players(1)
    assert skew_plan.client_offset_s(group.ahead[0], group, SKEW_S) == SKEW_S
    assert skew_plan.client_offset_s(group.opening_expired[0], group, SKEW_S) == 0


def _passing() -> Observed:
    return Observed(
        sent={"ahead": 6, "opening_expired": 6},
        answers={"ahead": {"SETTLED": 6}, "opening_expired": {"REQUEST_EXPIRED": 6}},
        open_wagers=0,
        discrepancies=0,
        closing_refused_by_age=0,
        jackpot_refused_by_age=0,
        internal_dead_letters=0,
        winners=3,
        winners_paid=3,
        skewed_clock_ahead_s=3659.9,
        past_window={kind: True for kind in skew_plan.EXERCISED_TYPES},
    )


def test_a_run_that_closed_every_wager_and_refused_nothing_closing_passes():
    assert failures(_passing(), SKEW_S) == []


def test_each_way_of_leaving_a_saga_open_or_refusing_by_age_fails_the_run():
    broken = {
        "open_wagers": 1,
        "discrepancies": 1,
        "closing_refused_by_age": 1,
        "jackpot_refused_by_age": 1,
        "internal_dead_letters": 1,
        "winners_paid": 2,
        "skewed_clock_ahead_s": 0.0,
    }
    for field, value in broken.items():
        assert len(failures(replace(_passing(), **{field: value}), SKEW_S)) == 1, field


def test_an_unanswered_request_or_an_unexpected_answer_fails_the_run():
    unanswered = replace(_passing(), answers={"ahead": {"SETTLED": 5}, "opening_expired": {"REQUEST_EXPIRED": 6}})
    assert failures(unanswered, SKEW_S) == ["ahead: 5 of 6 requests answered"]
    stuck = {"ahead": {"SETTLED": 6}, "opening_expired": {"REQUEST_EXPIRED": 3, "SPIN_IN_PROGRESS": 3}}
    assert len(failures(replace(_passing(), answers=stuck), SKEW_S)) == 1
    refused = {"ahead": {"SETTLED": 5, "SPIN_IN_PROGRESS": 1}, "opening_expired": {"REQUEST_EXPIRED": 6}}
    assert len(failures(replace(_passing(), answers=refused), SKEW_S)) == 1


def test_a_run_that_decided_no_internal_command_past_the_window_proves_nothing_and_fails():
    unexercised = dict(_passing().past_window, **{"reelstream.jackpot.claim.v1": False})
    assert len(failures(replace(_passing(), past_window=unexercised), SKEW_S)) == 1


def test_past_the_window_means_every_one_decided_strictly_older_than_the_window():
    settle, claim, contribute = skew_plan.EXERCISED_TYPES[0], skew_plan.EXERCISED_TYPES[2], skew_plan.EXERCISED_TYPES[1]
    ages = {
        settle: {"count": 3, "min_age_s": WINDOW_S + 0.5, "max_age_s": WINDOW_S + 1},
        contribute: {"count": 3, "min_age_s": WINDOW_S, "max_age_s": WINDOW_S + 1},
    }
    assert past_window(ages) == {settle: True, contribute: False, claim: False}


def test_the_result_page_names_what_was_refused_and_the_verdict():
    result = {
        "skew_s": SKEW_S,
        "clocks_ahead_s": {1: 0.1, 2: 0.0, 3: 3659.9},
        "command_ages": {"reelstream.wallet.settle-wager.v1": {"count": 3, "min_age_s": 3660.8, "max_age_s": 3661.0}},
        "sent": {"ahead": 6},
        "answers": {"ahead": {"SETTLED": 5, "SPIN_IN_PROGRESS": 1}},
        "closing_refused_by_age": 2,
        "opening_refused_by_age": 6,
        "jackpot_refused_by_age": 0,
        "internal_dead_letters": 0,
        "jackpot_paid_minor": {"skew-0001": 500},
        "audit": {"discrepancies": 0, "open_wagers": 1, "spins_rederived": 5},
        "seconds": 12.5,
        "cpus": 2,
        "failures": ["1 wagers open at the end"],
    }
    page = skew_plan.markdown(result)
    assert "| reelstream.wallet.settle-wager.v1 | 3 | 3660.8 | 3661.0 |" in page
    assert "| ahead | 6 | SETTLED 5, SPIN_IN_PROGRESS 1 |" in page
    assert "settlements or refunds refused by age: 2" in page
    assert "Verdict: FAILED: 1 wagers open at the end." in page
