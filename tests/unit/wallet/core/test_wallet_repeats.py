"""Idempotency: a repeat names the facts of the first time again (the loop re-emits their records: the adapter's
tests check the bytes), conflicts and expired commands are refused, memory stays bounded."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import encode, envelope
from shared.events.wallet import Deposit

from services.wallet.core import decide_player
from tests.support.wallet import PLAYER, Wallet, code, tx

WINDOW = timedelta(milliseconds=DEDUP_WINDOW_MS)
SKEW = timedelta(milliseconds=CLOCK_SKEW_MS)


def test_a_repeat_inside_the_window_returns_the_original_event_byte_for_byte_and_changes_nothing():
    wallet = Wallet()
    original = wallet.deposit(1, 100)
    state_after_original = wallet.state
    wallet.later(minutes=30)
    repeat = wallet.deposit(1, 100, sent_at=wallet.now - timedelta(minutes=1))
    assert wallet.last.events == () and wallet.last.repeated == (str(original.id),)
    assert encode(repeat) == encode(original)
    assert wallet.state.player == state_after_original.player
    assert wallet.balance() == 100


def test_a_repeat_of_a_rejection_returns_the_same_rejection_even_after_the_balance_grew():
    wallet = Wallet()
    wallet.deposit(1, 50)
    rejection = wallet.debit(2, 100)
    wallet.deposit(3, 500)
    assert encode(wallet.debit(2, 100)) == encode(rejection)
    assert wallet.balance() == 550
    assert wallet.state.player.open_wagers == {}


def test_the_same_id_with_other_content_is_a_duplicate_conflict_that_changes_nothing():
    wallet = Wallet()
    wallet.deposit(1, 100)
    conflict = wallet.deposit(1, 999)
    assert code(conflict) == "DUPLICATE_CONFLICT"
    assert wallet.balance() == 100


def test_a_conflict_does_not_take_over_the_id_so_the_original_still_answers_repeats():
    wallet = Wallet()
    original = wallet.deposit(1, 100)
    wallet.withdraw(1, 5)
    assert encode(wallet.deposit(1, 100)) == encode(original)


def test_a_debit_reusing_the_id_of_an_open_wager_takes_nothing_even_after_the_memory_expired():
    # The same stake is a copy of the debit that opened the wager (nothing is written); another is a conflict.
    wallet = Wallet()
    wallet.deposit(1, 100)
    wallet.debit(2, 10)
    wallet.later(milliseconds=DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)
    wallet.deposit(3, 1)
    assert wallet.send_all(wallet.debit_command(2, 10)) == ()
    assert wallet.last.repeats == 1
    assert code(wallet.debit(2, 11)) == "DUPLICATE_CONFLICT"
    assert wallet.balance() == 91


def test_a_command_older_than_the_window_is_refused_by_age():
    wallet = Wallet()
    rejection = wallet.deposit(1, 100, sent_at=wallet.now - WINDOW - timedelta(milliseconds=1))
    assert code(rejection) == "REQUEST_EXPIRED"
    assert wallet.balance() is None
    assert code(wallet.deposit(1, 100, sent_at=wallet.now - WINDOW)) is None


def test_a_wager_re_delivered_with_its_original_time_after_the_window_takes_and_settles_nothing():
    # Scenario: the spin's PlaceWager and DebitWager were decided, then the same records come again (a re-delivery
    # keeps its CloudEvents time) once the memory has forgotten them; the wager must not be taken or settled twice.
    # The settled PlaceWager is refused by age; the copy of the still-open debit is named nothing new (a refusal would
    # read to the spin as the wager's own).
    wallet = Wallet()
    wallet.deposit(1, 100)
    first_sent = wallet.now
    wallet.place(2, 10, house_win_minor=4)
    wallet.debit(3, 20)
    wallet.later(milliseconds=DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)
    wallet.deposit(4, 1)  # the memory of the wagers is pruned
    assert set(wallet.state.memory) == {str(tx(4))}
    place_again = wallet.place(2, 10, house_win_minor=4, sent_at=first_sent)
    assert [code(event) for event in place_again] == ["REQUEST_EXPIRED"]
    assert wallet.send_all(wallet.debit_command(3, 20), sent_at=first_sent) == ()
    assert wallet.balance() == 100 - 10 + 4 - 20 + 1
    assert list(wallet.state.player.open_wagers) == [str(tx(3))]


def test_a_command_dated_in_the_future_beyond_the_clock_skew_is_refused():
    wallet = Wallet()
    assert code(wallet.deposit(1, 100, sent_at=wallet.now + SKEW + timedelta(milliseconds=1))) == "REQUEST_EXPIRED"
    assert code(wallet.deposit(2, 100, sent_at=wallet.now + SKEW)) is None


def test_an_expired_refusal_does_not_take_the_id():
    wallet = Wallet()
    wallet.deposit(1, 100, sent_at=wallet.now - WINDOW * 2)
    assert code(wallet.deposit(1, 100)) is None
    assert wallet.balance() == 100


def test_refusals_that_do_not_own_the_id_get_an_event_id_of_their_own_record():
    wallet = Wallet()
    wallet.deposit(1, 100)
    first = wallet.deposit(1, 5)
    second = wallet.later(seconds=1).deposit(1, 5)
    assert first.id != second.id
    assert code(first) == code(second) == "DUPLICATE_CONFLICT"


def test_memory_entries_are_forgotten_after_the_window_and_the_skew():
    wallet = Wallet()
    wallet.deposit(1, 100)
    wallet.later(milliseconds=DEDUP_WINDOW_MS + CLOCK_SKEW_MS)
    wallet.deposit(2, 1)
    assert str(tx(1)) in wallet.state.memory
    wallet.later(milliseconds=1)
    wallet.deposit(3, 1)
    assert str(tx(1)) not in wallet.state.memory
    assert set(wallet.state.memory) == {str(tx(2)), str(tx(3))}


def test_re_deciding_the_same_record_on_the_same_state_gives_byte_identical_events():
    wallet = Wallet()
    wallet.deposit(1, 100)
    command = envelope(
        Deposit(transaction_id=tx(2), player_id=PLAYER, amount_minor=5, currency="EUR"), source="t", time=wallet.now
    )
    assert [encode(e) for e in decide_player(wallet.state, command, wallet.now).events] == [
        encode(e) for e in decide_player(wallet.state, command, wallet.now).events
    ]


def test_an_entry_ahead_of_the_player_state_is_ignored_and_the_command_decided_afresh_to_the_same_event():
    # Scenario: the service crashed after writing the memory entry but before the player's state reached the store;
    # the restarted service finds the entry (seq 2) next to the older state (seq 1) and must not treat it as done.
    wallet = Wallet()
    wallet.deposit(1, 100)
    before = wallet.state
    original = wallet.deposit(2, 40)
    torn = replace(before, memory=dict(wallet.state.memory))
    command = envelope(
        Deposit(transaction_id=tx(2), player_id=PLAYER, amount_minor=40, currency="EUR"), source="t", time=wallet.now
    )
    (afresh,) = decide_player(torn, command, wallet.now).events
    assert afresh.id == original.id
    assert afresh.data == original.data
    assert afresh.data.balance_after_minor == 140


def test_an_id_used_anew_after_its_memory_expired_is_a_new_fact_with_its_own_event_id():
    # By the window's contract a command dated now with an id last seen more than a window ago is a new command:
    # it must not share the old fact's event id, or a consumer de-duplicating by id would drop real money.
    wallet = Wallet()
    first = wallet.deposit(1, 100)
    wallet.later(milliseconds=DEDUP_WINDOW_MS + CLOCK_SKEW_MS + 1)
    second = wallet.deposit(1, 100)
    assert code(second) is None
    assert second.id != first.id
    assert wallet.balance() == 200
