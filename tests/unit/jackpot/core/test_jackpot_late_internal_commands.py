"""No saga left open: the spin's claims and contributions are answered however late they come, or however the
clocks stand; a claim that waited is paid, never refused by age (which left its spin settled with 0 from the pool).

Scenario: the spin dates its commands with the broker time of the record it read (the wager's debit), so a spin that
lags behind its input, or a jackpot.commands leader whose clock is ahead, makes them look older than the
de-duplication window (or dated in the future) to the jackpot. An operator's command is still refused by age.
"""

from __future__ import annotations

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import broker_time
from shared.events import jackpot as jp

from tests.support.jackpot import DIAMOND, T0_MS, admin, claim, contribute, incoming, jackpot_core

NOW = broker_time(T0_MS)
LATE_MS = DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1
AHEAD_MS = 60 * 60 * 1000
OPENED = [jp.PoolOpened] * len(DIAMOND.pools)


def test_a_claim_dated_past_the_window_is_paid():
    late = incoming(claim(tier="green", stake_minor=10), T0_MS, sent_ms=T0_MS - LATE_MS)
    won = jackpot_core().given().when(late, NOW)
    won.then(*OPENED, jp.JackpotWon, jp.PoolReseeded)  # a pool at its seed is topped up again after a win
    assert won.decision.events[-2].data.amount_minor > 0


def test_a_claim_dated_an_hour_ahead_of_the_jackpot_is_paid():
    ahead = incoming(claim(tier="green", stake_minor=10), T0_MS, sent_ms=T0_MS + AHEAD_MS)
    jackpot_core().given().when(ahead, NOW).then(*OPENED, jp.JackpotWon, jp.PoolReseeded)


def test_a_late_claim_repeated_inside_the_memory_is_paid_once():
    late = incoming(claim(tier="green", stake_minor=10), T0_MS, sent_ms=T0_MS - LATE_MS)
    paid = jackpot_core().given().when(late, NOW)
    again = paid.when(late, NOW).then(jp.JackpotWon, jp.PoolReseeded)  # the answers named again, nothing paid anew
    assert again.decision.repeats == 1
    assert [event.id for event in again.decision.events] == [event.id for event in paid.decision.events[-2:]]


def test_a_contribution_dated_past_the_window_is_applied():
    late = incoming(contribute(), T0_MS, sent_ms=T0_MS - 2 * LATE_MS)
    jackpot_core().given().when(late, NOW).then(*OPENED, jp.ContributionsApplied).then_dead_letters()


def test_an_operators_command_older_than_the_window_is_still_refused_by_age():
    old = incoming(admin(jp.DisablePool, "dm-green"), T0_MS, sent_ms=T0_MS - LATE_MS)
    refused = jackpot_core().given().when(old, NOW).then(*OPENED, jp.PoolCommandRejected)
    assert refused.decision.events[-1].data.code == "EXPIRED"
