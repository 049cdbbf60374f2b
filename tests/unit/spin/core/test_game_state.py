"""Stjernestøv-like state: one spin at a time per player, the stake lock, and the forfeit that clears the ring."""

from services.spin.core.book import SpinBook

from tests.support.spin import (
    handle_event,
    handle_request,
    NOW_MS,
    Seeds,
    debit_refused_for,
    decoded,
    make_context,
    only,
    play_out,
    request_bytes,
    seed_for,
)

ODD = seed_for(lambda word: word % 2 == 1 and word % 5 != 0, "stjernestoev")


def spin(book, ctx, stake, forfeit=False):
    _, raw = request_bytes(game="stjernestoev", currency="DKK", stake=stake, forfeit=forfeit)
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    return asked, play_out(book, ctx, asked)


def test_a_second_spin_of_a_stateful_game_while_one_is_in_flight_is_refused():
    book, ctx = SpinBook(), make_context()
    handle_request(book, ctx, request_bytes(game="stjernestoev", currency="DKK", stake=50)[1], b"p-1", NOW_MS, 0, 0)
    second = handle_request(
        book, ctx, request_bytes(game="stjernestoev", currency="DKK", stake=50)[1], b"p-1", NOW_MS, 0, 1
    )
    assert decoded(only(second.outputs, "answer")).code == "SPIN_IN_PROGRESS"


def test_a_pending_ring_locks_the_stake_and_the_next_spin_starts_from_the_state_after():
    book, ctx = SpinBook(), make_context(Seeds(ODD, ODD))
    spin(book, ctx, 50)
    locked, _ = spin(book, ctx, 100)
    assert decoded(only(locked.outputs, "answer")).code == "STAKE_LOCKED"
    played, _ = spin(book, ctx, 50)
    drawn = decoded(only(played.journal, "seed"))
    assert drawn.state_before == {"ring": 1, "stake": 50}


def test_a_forfeit_clears_the_ring_journals_it_and_the_spin_proceeds_at_the_new_stake():
    book, ctx = SpinBook(), make_context(Seeds(ODD, ODD))
    spin(book, ctx, 50)
    played, _ = spin(book, ctx, 100, forfeit=True)
    accepted, forfeited, drawn = (decoded(out) for out in played.journal)
    assert (forfeited.locked_stake_minor, forfeited.new_stake_minor) == (50, 100)
    assert forfeited.state_before == {"ring": 1, "stake": 50}
    assert drawn.state_before == {"ring": 0, "stake": None}
    assert decoded(only(played.outputs, "place")).transaction_id == drawn.request_id


def test_a_refused_wager_never_costs_the_ring_and_the_next_spin_starts_from_the_state_before_it():
    book, ctx = SpinBook(), make_context(Seeds(ODD, ODD, ODD))
    spin(book, ctx, 50)
    _, raw = request_bytes(game="stjernestoev", currency="DKK", stake=100, forfeit=True)
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    handle_event(book, ctx, debit_refused_for(only(asked.outputs, "place"), "INSUFFICIENT_FUNDS"))
    locked, _ = spin(book, ctx, 100)
    assert decoded(only(locked.outputs, "answer")).code == "STAKE_LOCKED"  # the ring is still there
    played, _ = spin(book, ctx, 50)
    assert decoded(only(played.journal, "seed")).state_before == {"ring": 1, "stake": 50}


def test_a_refused_wager_leaves_the_state_its_seed_would_have_changed_as_it_was():
    book, ctx = SpinBook(), make_context(Seeds(ODD, ODD))
    _, raw = request_bytes(game="stjernestoev", currency="DKK", stake=50)
    asked = handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0)
    handle_event(book, ctx, debit_refused_for(only(asked.outputs, "place"), "SELF_EXCLUDED"))
    played, _ = spin(book, ctx, 100)  # the voided ODD spin would have locked the stake at 50
    assert decoded(only(played.journal, "seed")).state_before == {"ring": 0, "stake": None}
