"""No saga left open across the spin and the wallet cores: a player who repeats a request whose spin has been in flight
longer than the de-duplication window (its claim not answered yet) makes the spin send its DebitWager again, dated at
acceptance; the wallet must not answer that copy with a refusal, which the spin would read as the wager's own (void the
spin, answer it, and leave the debit open for good).
"""

from __future__ import annotations

import uuid

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import broker_time, envelope
from shared.events.jackpot import Claim
from shared.events.spin import SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import DebitWager, Deposit, SettleWager

from tests.support.spin import CLAIM, NOW_MS, Seeds, claim_refused_for, fact, make_context, one, request
from tests.support.spin import request_bytes, spin_core
from tests.support.wallet import WALLET

NOW = broker_time(NOW_MS)
LATE = broker_time(NOW_MS + DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)


def test_a_repeat_of_a_request_in_flight_past_the_window_leaves_the_spin_to_settle_its_debit():
    spin = spin_core(make_context(Seeds(CLAIM))).given()
    _, raw = request_bytes(stake=100)
    debit = one(spin.when(request(raw, offset=0), NOW).decision.commands, DebitWager)
    deposit = Deposit(transaction_id=uuid.UUID(int=1), player_id="p-1", amount_minor=1_000, currency="EUR")
    wallet = WALLET.given().when(envelope(deposit, source="test", time=NOW), NOW)
    debited = wallet.when(debit, NOW).decision.events[0]
    claim = one(spin.when(fact(debited), NOW_MS).decision.commands, Claim)

    copy = one(spin.when(request(raw, offset=1, now_ms=NOW_MS + DEDUP_WINDOW_MS), LATE).decision.commands, DebitWager)
    answered = wallet.when(copy, LATE).decision.events
    for event in answered:  # whatever the wallet answers, the spin reads it
        reaction = spin.when(fact(event), NOW_MS + DEDUP_WINDOW_MS).decision
        assert not [e for e in reaction.events if isinstance(e.data, SpinVoided)], "a debited spin was voided"
        assert not [a for a in reaction.answers if isinstance(a.data, SpinRejected)], "a debited spin was answered"

    answered_claim, _ = claim_refused_for(claim)  # a disabled pool: the spin settles its house win only
    settle = one(spin.when(fact(answered_claim), NOW_MS + DEDUP_WINDOW_MS).decision.commands, SettleWager)
    settled = wallet.when(settle, LATE).decision.events[0]
    answer = spin.when(fact(settled), NOW_MS + DEDUP_WINDOW_MS).decision.answers
    assert [type(a.data) for a in answer] == [SpinSettled]
    assert wallet.state.state_of("p-1").player.open_wagers == {}
