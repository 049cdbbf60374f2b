"""A seamless operator's player, between the real spin core and engine, the seamless saga's core and an operator wallet:
a stake that can never complete the carried ½ cent has it credited, rounded up, in the round's one win call (one bet
and one win a round still); a refused or rolled-back stranding round leaves the ½ cent carried, for the next round to
credit; a win acknowledged without a balance is answered settled with the balance unknown, never an invented one."""

from __future__ import annotations

from seamless.port import BetCall, Status, WinCall
from shared.events.seamless import SeamlessBetAccepted, SeamlessRolledBack, SeamlessWinDecided
from shared.events.spin import RemainderStranded, SpinRejected, SpinSettled, SpinVoided
from shared.events.wallet import PlaceWager
from tests.support.remainders import HALF, NOW, seed_leaving
from tests.support.seamless_pair import OPERATOR, START_MINOR, SeamlessPair
from tests.support.spin import request, request_bytes, wallet_event

HALF_AT_10 = seed_leaving(10, 0, HALF)
ANY_AT_20 = seed_leaving(20, 0, 0)


def test_a_stake_that_strands_the_half_cent_has_it_credited_in_the_rounds_one_win(monkeypatch):
    pair = SeamlessPair(monkeypatch, HALF_AT_10, ANY_AT_20)
    first = pair.spin(10)
    assert isinstance(first, SpinSettled) and first.state_after == {"remainder_micro": HALF}
    second = pair.spin(20)
    assert isinstance(second, SpinSettled) and second.state_before == {"remainder_micro": 0}
    (stranded,) = [fact for fact in pair.journal if isinstance(fact, RemainderStranded)]
    assert (stranded.reason, stranded.remainder_micro) == ("stake-change", HALF)
    assert [call.amount_minor for call in pair.wallet.of_kind(BetCall)] == [10, 20]
    assert [call.amount_minor for call in pair.wallet.of_kind(WinCall)] == [first.win_minor, second.win_minor + 1]
    decided = pair.of_kind(SeamlessWinDecided)[-1]
    assert (decided.remainder_stranded_micro, decided.remainder_credit_minor) == (HALF, 1)
    assert decided.amount_minor == decided.house_win_minor + decided.jackpot_win_minor + 1
    balance_minor = START_MINOR - 10 + first.win_minor - 20 + second.win_minor + 1
    assert second.balance_after_minor == balance_minor == pair.wallet.balance_minor
    assert pair.state() == second.state_after


def test_a_refused_stranding_bet_leaves_the_half_cent_carried_for_the_next_round(monkeypatch):
    pair = SeamlessPair(monkeypatch, HALF_AT_10, ANY_AT_20, ANY_AT_20)
    pair.spin(10)
    pair.wallet.refuse_bets = Status.LIMIT_REACHED
    refused = pair.spin(20)
    assert isinstance(refused, SpinRejected) and refused.code == "LIMIT_EXCEEDED"
    assert pair.state() == {"remainder_micro": HALF}
    pair.wallet.refuse_bets = None
    again = pair.spin(20)
    assert isinstance(again, SpinSettled)
    assert pair.wallet.of_kind(WinCall)[-1].amount_minor == again.win_minor + 1


def test_a_rolled_back_stranding_round_voids_its_outcome_and_leaves_the_half_cent_carried(monkeypatch):
    """The round's bet is taken, then undone: no win carries the credit, so the player's state keeps the ½ cent."""
    pair = SeamlessPair(monkeypatch, HALF_AT_10, ANY_AT_20)
    pair.spin(10)
    _, raw = request_bytes(stake=20, operator=OPERATOR)
    asked = pair.spins.decide(pair.book, request(raw), NOW)  # its PlaceWager is not passed on: the test answers it
    (place,) = [command.data for command in asked.commands if isinstance(command.data, PlaceWager)]
    assert place.remainder_stranded and place.remainder_before_micro == HALF
    common = {"wager_id": place.transaction_id, "player_id": "p-1", "operator_id": OPERATOR, "recorded_at": NOW}
    pair.to_spin(wallet_event(SeamlessBetAccepted(**common, amount_minor=20, currency="EUR")))
    pair.to_spin(wallet_event(SeamlessRolledBack(**common, amount_minor=20, currency="EUR")))
    assert isinstance(pair.answers[-1], SpinRejected) and pair.answers[-1].code == "WAGER_REFUNDED"
    assert isinstance(pair.journal[-1], SpinVoided)
    assert pair.state() == {"remainder_micro": HALF}


def test_a_win_acknowledged_without_a_balance_is_answered_settled_with_the_balance_unknown(monkeypatch):
    pair = SeamlessPair(monkeypatch, HALF_AT_10)
    pair.wallet.with_balance = False
    settled = pair.spin(10)
    assert isinstance(settled, SpinSettled)
    assert settled.balance_after_minor is None
    assert settled.win_minor == pair.wallet.of_kind(WinCall)[-1].amount_minor
