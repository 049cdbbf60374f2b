"""The remainder as money, between the spin core and the real wallet core: a Rising Joker player's carried ½ cent is
on the wallet's record after the spin that leaves it; a stake that can never complete it has it credited in the
wager's own transaction; self-exclusion and closure credit it and the player's state carries it no more; a spin in
flight that carried it in is refused, so it is never paid twice."""

from __future__ import annotations

from datetime import timedelta

from shared.events.spin import RemainderStranded, SeedDrawn, SpinRejected, SpinSettled
from shared.events.wallet import CloseAccount, RemainderCredited, SelfExclude, SetLimit
from tests.support.remainders import HALF, NOW, Pair, seed_leaving
from tests.support.wallet import tx

HALF_AT_10 = seed_leaving(10, 0, HALF)
ANY_AT_20 = seed_leaving(20, 0, 0)


def of(kind, facts) -> list:
    return [fact for fact in facts if isinstance(fact, kind)]


def test_the_remainder_a_spin_leaves_is_on_the_wallets_record_and_the_next_spin_carries_it_in():
    pair = Pair(HALF_AT_10, seed_leaving(10, HALF, 0))
    first = pair.spin(10)
    assert isinstance(first, SpinSettled) and first.state_after == {"remainder_micro": HALF}
    assert pair.remainder() == HALF
    second = pair.spin(10)
    assert second.state_before == {"remainder_micro": HALF} and pair.remainder() == 0
    assert of(RemainderStranded, pair.journal) == []


def test_a_stake_that_can_never_complete_the_half_cent_has_it_credited_in_the_wagers_transaction():
    pair = Pair(HALF_AT_10, ANY_AT_20)
    pair.spin(10)
    before = pair.balance()
    settled = pair.spin(20)
    (stranded,) = of(RemainderStranded, pair.journal)
    assert (stranded.reason, stranded.remainder_micro, stranded.state_after) == (
        "stake-change",
        HALF,
        {"remainder_micro": 0},
    )
    assert settled.state_before == {"remainder_micro": 0}  # the outcome is drawn without it
    seed = of(SeedDrawn, pair.journal)[-1]
    assert (seed.remainder_before_micro, seed.remainder_stranded) == (HALF, True)
    assert pair.balance() == before - 20 + 1 + settled.win_minor and pair.remainder() == 0


def test_a_refused_stranding_wager_leaves_the_half_cent_carried():
    pair = Pair(HALF_AT_10, ANY_AT_20, seed_leaving(10, HALF, 0))
    pair.spin(10)
    pair.cashier(
        SetLimit(transaction_id=tx(2), player_id="p-1", currency="EUR", kind="loss", period="day", amount_minor=5)
    )
    refused = pair.spin(20)
    assert isinstance(refused, SpinRejected) and refused.code == "LIMIT_EXCEEDED"
    assert pair.remainder() == HALF
    assert pair.book.game_states[("p-1", "rising-joker")] == {"remainder_micro": HALF}


def test_self_exclusion_credits_the_half_cent_and_the_spins_state_carries_it_no_more():
    pair = Pair(HALF_AT_10, seed_leaving(10, 0, HALF))
    pair.spin(10)
    before = pair.balance()
    until = NOW + timedelta(seconds=1)
    facts = pair.cashier(SelfExclude(transaction_id=tx(2), player_id="p-1", until=until))
    (credited,) = of(RemainderCredited, facts)
    assert credited.reason == "self-exclusion" and pair.balance() == before + 1
    (stranded,) = of(RemainderStranded, pair.journal)
    assert stranded.state_after == {"remainder_micro": 0} and stranded.request_id is None
    again = pair.spin(10)  # the broker's clock stands still here: still excluded
    assert isinstance(again, SpinRejected) and again.code == "SELF_EXCLUDED"
    assert pair.book.game_states[("p-1", "rising-joker")] == {"remainder_micro": 0}


def test_closure_while_a_spin_carrying_the_half_cent_is_in_flight_pays_it_once():
    pair = Pair(HALF_AT_10, seed_leaving(10, HALF, 0))
    pair.spin(10)
    before = pair.balance()
    flying = pair.request(10)  # its PlaceWager carries ½ cent in and has not reached the wallet yet
    pair.cashier(CloseAccount(transaction_id=tx(2), player_id="p-1"))
    pair.follow(flying)  # now it arrives: refused, the account is closed
    assert isinstance(pair.answers[-1], SpinRejected) and pair.answers[-1].code == "ACCOUNT_CLOSED"
    (stranded,) = of(RemainderStranded, pair.journal)
    assert stranded.request_id is not None and stranded.reason == "closure"
    assert pair.balance() == before + 1 and pair.remainder() == 0
    assert pair.book.game_states[("p-1", "rising-joker")] == {"remainder_micro": 0}


def test_a_spin_in_flight_when_a_short_self_exclusion_credited_its_half_cent_is_refused_and_play_goes_on():
    """The exclusion ends before the spin's wager reaches the wallet: the wager carried in a ½ cent the wallet has
    credited, so it is refused (REMAINDER_MISMATCH), the spin is answered, and the next spin starts without it."""
    pair = Pair(HALF_AT_10, seed_leaving(10, HALF, 0), ANY_AT_20)
    pair.spin(10)
    before = pair.balance()
    flying = pair.request(10)
    pair.cashier(SelfExclude(transaction_id=tx(2), player_id="p-1", until=NOW + timedelta(seconds=1)))
    pair.now_ms += 2_000
    pair.follow(flying)
    assert isinstance(pair.answers[-1], SpinRejected) and pair.answers[-1].code == "REMAINDER_MISMATCH"
    after = pair.spin(10)
    assert isinstance(after, SpinSettled) and after.state_before == {"remainder_micro": 0}
    assert pair.balance() == before + 1 - 10 + after.win_minor
