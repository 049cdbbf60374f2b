"""Stjernestøv-like state: one spin at a time per player, the stake lock, and the forfeit that clears the ring."""

from shared.events import broker_time
from shared.events.spin import BonusRingForfeited, SeedDrawn, SpinAccepted, SpinRejected
from shared.events.wallet import PlaceWager
from tests.support.spin import (
    NOW_MS,
    Seeds,
    debit_refused_for,
    fact,
    make_context,
    one,
    play_out,
    request,
    request_bytes,
    seed_for,
    spin_core,
)

ODD = seed_for(lambda word: word % 2 == 1 and word % 5 != 0, "stjernestoev")
NOW = broker_time(NOW_MS)


def ask(given, stake, forfeit=False):
    """A Stjernestøv request decided by the spin `given`."""
    _, raw = request_bytes(game="stjernestoev", currency="DKK", stake=stake, forfeit=forfeit)
    return given.when(request(raw), NOW)


def spin(given, stake, forfeit=False):
    """A Stjernestøv request decided, and its wager taken and settled by a wallet that accepts it."""
    asked = ask(given, stake, forfeit)
    play_out(given, asked)
    return asked


def test_a_second_spin_of_a_stateful_game_while_one_is_in_flight_is_refused():
    given = spin_core(make_context()).given()
    ask(given, 50)
    second = ask(given, 50).then().then_commands()
    assert one(second.decision.answers, SpinRejected).data.code == "SPIN_IN_PROGRESS"


def test_a_pending_ring_locks_the_stake_and_the_next_spin_starts_from_the_state_after():
    given = spin_core(make_context(Seeds(ODD, ODD))).given()
    spin(given, 50)
    locked = spin(given, 100).then()
    assert one(locked.decision.answers, SpinRejected).data.code == "STAKE_LOCKED"
    played = spin(given, 50).then(SeedDrawn)
    assert played.decision.events[0].data.state_before == {"ring": 1, "stake": 50}


def test_a_forfeit_clears_the_ring_journals_it_and_the_spin_proceeds_at_the_new_stake():
    given = spin_core(make_context(Seeds(ODD, ODD))).given()
    spin(given, 50)
    played = spin(given, 100, forfeit=True).then(SpinAccepted, BonusRingForfeited, SeedDrawn)
    _, forfeited, drawn = (event.data for event in played.decision.events)
    assert (forfeited.locked_stake_minor, forfeited.new_stake_minor) == (50, 100)
    assert forfeited.state_before == {"ring": 1, "stake": 50}
    assert drawn.state_before == {"ring": 0, "stake": None}
    assert one(played.decision.commands, PlaceWager).data.transaction_id == drawn.request_id


def test_a_refused_wager_never_costs_the_ring_and_the_next_spin_starts_from_the_state_before_it():
    given = spin_core(make_context(Seeds(ODD, ODD, ODD))).given()
    spin(given, 50)
    asked = ask(given, 100, forfeit=True)
    given.when(fact(debit_refused_for(one(asked.decision.commands, PlaceWager), "INSUFFICIENT_FUNDS")), NOW)
    locked = spin(given, 100)
    assert one(locked.decision.answers, SpinRejected).data.code == "STAKE_LOCKED"  # the ring is still there
    played = spin(given, 50).then(SeedDrawn)
    assert played.decision.events[0].data.state_before == {"ring": 1, "stake": 50}


def test_a_refused_wager_leaves_the_state_its_seed_would_have_changed_as_it_was():
    given = spin_core(make_context(Seeds(ODD, ODD))).given()
    asked = ask(given, 50)
    given.when(fact(debit_refused_for(one(asked.decision.commands, PlaceWager), "SELF_EXCLUDED")), NOW)
    played = spin(given, 100).then(SeedDrawn)  # the voided ODD spin would have locked the stake at 50
    assert played.decision.events[0].data.state_before == {"ring": 0, "stake": None}


def test_a_settled_spin_stays_in_the_book_as_its_answer_and_state_after_not_its_outcome():
    given = spin_core(make_context(Seeds(ODD, ODD))).given()
    asked = spin(given, 50)
    (record,) = asked.state.records.values()
    assert record.answer_code == "SETTLED"
    assert record.result is None  # the answer holds the outcome; the book keeps it for the de-duplication window
    assert record.settled_state_after == {"ring": 1, "stake": 50}
