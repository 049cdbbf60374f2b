"""A wager the wallet refuses by age frees its player's game: the refusal is the request's one answer.

Scenario: a wallet.internal leader whose clock runs an hour ahead makes the spin's debit look older than the
de-duplication window, and the wallet refuses it with REQUEST_EXPIRED. The spin answers the player with that code;
the answer is the accepted request's own (not an answer to one record), so the game it held in flight is free again.
"""

from shared.events import broker_time
from shared.events.spin import SeedDrawn, SpinRejected, request_answer_id
from shared.events.wallet import PlaceWager
from tests.support.spin import NOW_MS, debit_refused_for, fact, make_context, one, request, request_bytes, spin_core

NOW = broker_time(NOW_MS)


def _ask(given):
    _, raw = request_bytes(game="stjernestoev", currency="DKK", stake=50)
    return given.when(request(raw), NOW)


def test_a_wager_refused_by_age_is_answered_as_its_request_and_the_next_spin_is_taken():
    given = spin_core(make_context()).given()
    asked = _ask(given)
    wager = one(asked.decision.commands, PlaceWager)
    refused = given.when(fact(debit_refused_for(wager, "REQUEST_EXPIRED")), NOW)
    answer = one(refused.decision.answers, SpinRejected)
    assert answer.data.code == "REQUEST_EXPIRED"
    assert answer.id == request_answer_id(wager.data.transaction_id)
    _ask(given).then(SeedDrawn)  # not SPIN_IN_PROGRESS


def test_a_wager_refused_as_a_conflict_frees_the_game_too():
    given = spin_core(make_context()).given()
    asked = _ask(given)
    given.when(fact(debit_refused_for(one(asked.decision.commands, PlaceWager), "DUPLICATE_CONFLICT")), NOW)
    _ask(given).then(SeedDrawn)
