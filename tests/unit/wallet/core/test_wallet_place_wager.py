"""A whole spin in one command (PlaceWager): debit and settlement together, accepted or refused as a whole, judged on
the stake and the player's state, never on the outcome it carries."""

from __future__ import annotations

import copy
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.events import encode
from shared.events.wallet import CommandRejected, PlaceWager, WagerDebited, WagerSettled, postings_balanced
from services.wallet.core.awards import MAX_AWARD_X_STAKE
from tests.support.wallet import PLAYER, Wallet, tx
from test_wallet_properties import apply, steps


def funded(amount_minor: int = 1_000) -> Wallet:
    wallet = Wallet()
    wallet.deposit(1, amount_minor)
    return wallet


def test_an_accepted_place_wager_writes_its_debit_then_its_settlement_and_closes_the_wager():
    wallet = funded()
    debited, settled = wallet.place(2, 100, house_win_minor=250, breakage_micro=400_000, contribution_micro=1_500_000)
    assert isinstance(debited.data, WagerDebited) and isinstance(settled.data, WagerSettled)
    assert (debited.data.transaction_id, settled.data.transaction_id, settled.data.wager_id) == (
        tx(2),
        tx(10_002),
        tx(2),
    )
    assert (
        (debited.data.balance_after_minor, settled.data.balance_after_minor) == (900, 1_150) == (900, wallet.balance())
    )
    assert settled.data.win_minor == settled.data.house_win_minor == 250 and settled.data.jackpot_win_minor == 0
    assert postings_balanced(debited.data.postings) and postings_balanced(settled.data.postings)
    assert wallet.state.player.open_wagers == {}
    assert debited.id != settled.id


def test_a_place_wager_is_refused_as_a_whole_for_funds_exclusion_and_loss_limits():
    poor = funded(50)
    (refused,) = poor.place(2, 100, house_win_minor=5_000)
    assert (refused.data.code, refused.data.command_type, poor.balance()) == ("INSUFFICIENT_FUNDS", PlaceWager.TYPE, 50)
    limited = funded()
    limited.set_limit(3, "loss", "day", 150)
    limited.place(4, 100)
    (over,) = limited.place(5, 100, house_win_minor=10_000)  # a win would not help: the limit counts the stake
    assert (over.data.code, limited.balance()) == ("LIMIT_EXCEEDED", 900)
    excluded = funded()
    excluded.self_exclude(6, excluded.now + timedelta(hours=1))
    (out,) = excluded.place(7, 10)
    assert out.data.code == "SELF_EXCLUDED" and excluded.state.player.open_wagers == {}


def test_a_repeat_re_emits_both_events_byte_for_byte_and_other_content_is_a_conflict():
    wallet = funded()
    first = wallet.place(2, 100, house_win_minor=30)
    again = wallet.later(seconds=5).place(2, 100, house_win_minor=30)
    assert [encode(event) for event in again] == [encode(event) for event in first]
    assert wallet.balance() == 930
    (conflict,) = wallet.place(2, 100, house_win_minor=31)
    assert conflict.data.code == "DUPLICATE_CONFLICT" and wallet.balance() == 930


def test_a_refused_place_wager_is_remembered_and_repeated_as_the_one_refusal():
    wallet = funded(50)
    (first,) = wallet.place(2, 100)
    (again,) = wallet.later(seconds=1).place(2, 100)
    assert encode(again) == encode(first)


def test_an_impossible_outcome_is_refused_whatever_the_balance():
    wallet = funded(10**9)
    stake = 100
    (too_big,) = wallet.place(2, stake, house_win_minor=MAX_AWARD_X_STAKE["rising-joker"] * stake + 1)
    (too_much,) = wallet.place(3, stake, contribution_micro=stake * 1_000_000 + 1)
    assert [too_big.data.code, too_much.data.code] == ["INVALID_AMOUNT", "INVALID_AMOUNT"]
    assert wallet.balance() == 10**9


def _verdict(wallet: Wallet, data) -> str | None:
    """What the wallet answers a command with (None: accepted), decided on a copy so the wallet is unchanged."""
    events = copy.deepcopy(wallet).send_all(data)
    return events[0].data.code if isinstance(events[0].data, CommandRejected) else None


outcomes = st.tuples(st.integers(0, 5_000), st.integers(0, 999_999))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=st.lists(steps, max_size=30), stake=st.integers(1, 400), first=outcomes, second=outcomes)
def test_acceptance_depends_on_the_stake_and_the_players_state_never_on_the_outcome(history, stake, first, second):
    wallet, first_sent_at = Wallet(), {}
    for step in history:
        apply(wallet, step, first_sent_at)

    def placed(outcome) -> PlaceWager:
        house, breakage = outcome
        return PlaceWager(
            transaction_id=tx(900),
            player_id=PLAYER,
            amount_minor=stake,
            currency="EUR",
            game="rising-joker",
            settlement_id=tx(901),
            house_win_minor=min(house, MAX_AWARD_X_STAKE["rising-joker"] * stake),  # any possible outcome
            breakage_micro=breakage,
            contribution_micro=stake * 10_000,
            network_id="net-1",
        )

    verdicts = {_verdict(wallet, placed(first)), _verdict(wallet, placed(second))}
    assert len(verdicts) == 1, verdicts
    plain = copy.deepcopy(wallet)  # the same judgement a plain debit of the stake gets
    assert verdicts == {getattr(plain.debit(900, stake).data, "code", None)}
