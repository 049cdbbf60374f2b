"""A seamless operator's wager answered by the seamless saga (wallet.seamless): the spin goes on from the bet accepted
as from a debit, is settled with the operator's balance from the acknowledged win, refused with the operator's refusal
mapped to the spin's code (its outcome voided), refused WAGER_REFUNDED once its bet is rolled back; a win acknowledged
without a balance is settled with the balance unknown; a ledger operator's settlement names no operator."""

from __future__ import annotations

import dataclasses
from typing import Any

from shared import operators
from shared.events import broker_time
from shared.events.jackpot import Claim, Contribute
from shared.events.seamless import SeamlessBetAccepted, SeamlessBetRefused, SeamlessRolledBack, SeamlessWinAcknowledged
from shared.events.spin import SeedDrawn, SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import DebitWager, PlaceWager, SettleWager
from tests.support.spin import (
    CLAIM,
    NO_CLAIM,
    NOW_MS,
    Seeds,
    claim_refused_for,
    debited_for,
    decoded,
    fact,
    make_context,
    one,
    request,
    request_bytes,
    sent,
    spin_core,
    wallet_event,
)

NOW = broker_time(NOW_MS)
OPERATOR = "op-s"


def _asked(seed: bytes):
    _, raw = request_bytes(stake=10)
    given = spin_core(make_context(Seeds(seed))).given()
    return given, given.when(request(raw), NOW)


def _round(wager: Any) -> dict[str, Any]:
    command = decoded(wager)
    return {
        "wager_id": command.transaction_id,
        "player_id": command.player_id,
        "operator_id": OPERATOR,
        "recorded_at": NOW,
    }


def _accepted(wager: Any) -> Any:
    command = decoded(wager)
    return wallet_event(SeamlessBetAccepted(**_round(wager), amount_minor=command.amount_minor, currency="EUR"))


def _acknowledged(wager: Any, amount_minor: int, balance_after_minor: int | None) -> Any:
    command = decoded(wager)
    return wallet_event(
        SeamlessWinAcknowledged(
            **_round(wager),
            settlement_id=command.settlement_id,
            amount_minor=amount_minor,
            currency="EUR",
            balance_after_minor=balance_after_minor,
        )
    )


def test_a_placed_wager_is_settled_with_the_operators_balance_from_the_acknowledged_win():
    given, asked = _asked(NO_CLAIM)
    place = one(asked.decision.commands, PlaceWager)
    assert sent(given.when(fact(_accepted(place)), NOW).decision) == []  # the saga decides the win at once
    answer = given.when(fact(_acknowledged(place, place.data.house_win_minor, 5_432)), NOW)
    answer.then_commands(Contribute).then_answers(SpinSettled)
    settled = answer.decision.answers[0].data
    assert (settled.win_minor, settled.balance_after_minor) == (place.data.house_win_minor, 5_432)
    assert settled.contribution_micro == place.data.contribution_micro
    assert sent(given.when(fact(_acknowledged(place, place.data.house_win_minor, 5_432)), NOW).decision) == []


def test_a_win_acknowledged_without_a_balance_is_settled_with_the_balance_unknown():
    given, asked = _asked(NO_CLAIM)
    place = one(asked.decision.commands, PlaceWager)
    given.when(fact(_accepted(place)), NOW)
    answer = given.when(fact(_acknowledged(place, place.data.house_win_minor, None)), NOW)
    answer.then_commands(Contribute).then_answers(SpinSettled)
    assert answer.decision.answers[0].data.balance_after_minor is None


def test_a_debited_wager_goes_on_to_its_contribution_and_claims_once_the_bet_is_accepted():
    given, asked = _asked(CLAIM)
    debit = one(asked.decision.commands, DebitWager)
    going = given.when(fact(_accepted(debit)), NOW)
    assert Contribute in [type(c.data) for c in going.decision.commands]
    assert Claim in [type(c.data) for c in going.decision.commands]


def test_a_refused_bet_voids_the_outcome_and_refuses_the_spin_with_the_operators_code():
    given, asked = _asked(NO_CLAIM)
    place = one(asked.decision.commands, PlaceWager)
    refused = SeamlessBetRefused(
        **_round(place), code="LIMIT_EXCEEDED", status="LIMIT_REACHED", rolled_back=False, currency="EUR"
    )
    answer = given.when(fact(wallet_event(refused)), NOW).then(SpinVoided).then_answers(SpinRejected)
    assert answer.decision.answers[0].data.code == "LIMIT_EXCEEDED"
    assert SeedDrawn in [type(e.data) for e in asked.decision.events]


def test_a_bet_rolled_back_refuses_the_spin_still_unanswered():
    given, asked = _asked(CLAIM)
    debit = one(asked.decision.commands, DebitWager)
    rolled = SeamlessRolledBack(**_round(debit), amount_minor=10, currency="EUR")
    answer = given.when(fact(wallet_event(rolled)), NOW).then(SpinVoided).then_answers(SpinRejected)
    assert answer.decision.answers[0].data.code == "WAGER_REFUNDED"


def _settlement(seamless: tuple[operators.Operator, ...], monkeypatch) -> SettleWager:
    """The SettleWager of a claiming spin of `OPERATOR`'s player (its token's key binds the operator)."""
    monkeypatch.setattr(operators, "CONFIGURED", seamless)
    ctx = dataclasses.replace(make_context(Seeds(CLAIM)), token_operator=lambda _token: OPERATOR)
    _, raw = request_bytes(stake=10, operator=OPERATOR)
    given = spin_core(ctx).given()
    debit = one(given.when(request(raw), NOW).decision.commands, DebitWager)
    claims = [c for c in given.when(fact(debited_for(debit)), NOW).decision.commands if isinstance(c.data, Claim)]
    settles = []
    for claim in claims:
        refused, _ = claim_refused_for(claim)
        settles += [c for c in given.when(fact(refused), NOW).decision.commands if isinstance(c.data, SettleWager)]
    (settle,) = settles
    return settle.data


def test_a_settlement_names_its_operator_only_when_the_operator_is_seamless(monkeypatch):
    wallet = operators.SeamlessWallet("http://wallet.test", "hub88", "k-1", "/keys/k.pem")
    assert _settlement((operators.Operator(OPERATOR, "seamless", wallet),), monkeypatch).operator_id == OPERATOR
    assert _settlement((operators.Operator(OPERATOR),), monkeypatch).operator_id is None  # the ledger's, as before
