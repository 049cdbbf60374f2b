"""Property: for any command sequence, balances stay >= 0, every event's postings sum to zero, each wager closes at
most once, folding the emitted events from scratch gives the very state the wallet holds, and the book's kept
liabilities equal its players' balances added up."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.config import DEDUP_WINDOW_MS
from shared.events.wallet import WagerDebited, WagerRefunded, WagerSettled, postings_balanced

from tests.support.wallet import PLAYER, WALLET, Wallet

# Few ids and amounts, so repeats, conflicts and wagers that are settled twice happen often.
ids = st.integers(1, 6)
amounts = st.integers(-2, 300)
currencies = st.sampled_from(["EUR", "DKK", "USD"])
steps = st.one_of(
    st.tuples(st.just("deposit"), ids, amounts, currencies),
    st.tuples(st.just("withdraw"), ids, amounts, currencies),
    st.tuples(st.just("debit"), ids, amounts, currencies),
    st.tuples(st.just("settle"), ids, ids, amounts, st.integers(0, 50), st.integers(0, 3_000_000)),
    st.tuples(st.just("refund"), ids, ids),
    st.tuples(
        st.just("place"), ids, amounts, st.integers(0, 2_000), st.integers(0, 999_999), st.integers(0, 3_000_000)
    ),
    st.tuples(
        st.just("limit"),
        ids,
        st.sampled_from(["deposit", "loss"]),
        st.sampled_from(["day", "week", "month"]),
        st.one_of(st.none(), st.integers(0, 500)),
    ),
    st.tuples(st.just("exclude"), ids, st.integers(1, 48)),
    st.tuples(
        st.just("wait"), st.sampled_from([1, 60_000, DEDUP_WINDOW_MS // 2, DEDUP_WINDOW_MS + 31_000, 86_400_000])
    ),
    st.tuples(st.just("stale"), ids, amounts),
)


def apply(wallet: Wallet, step: tuple, first_sent_at: dict[int, datetime]) -> None:
    """One step. The spin sends the command that opens a wager (debit, place) again with the time it first sent it:
    a re-send is a re-delivery, refused by age after the window (docs/wallet.md); dated anew it would be a new wager
    by the window's contract. `first_sent_at` maps a wager's transaction number to that time."""
    kind, *args = step
    if kind == "wait":
        wallet.later(milliseconds=args[0])
    elif kind == "deposit":
        wallet.deposit(*args)
    elif kind == "withdraw":
        wallet.withdraw(*args)
    elif kind == "debit":
        wallet.debit(*args, sent_at=first_sent_at.setdefault(args[0], wallet.now))
    elif kind == "settle":
        n, wager, house, jackpot, contribution = args
        wallet.settle(n + 100, wager, house_win_minor=house, jackpot_win_minor=jackpot, contribution_micro=contribution)
    elif kind == "place":
        n, stake, house, breakage, contribution = args
        sent_at = first_sent_at.setdefault(n + 500, wallet.now)
        wallet.place(n + 500, stake, house, breakage_micro=breakage, contribution_micro=contribution, sent_at=sent_at)
    elif kind == "refund":
        wallet.refund(args[0] + 200, args[1])
    elif kind == "limit":
        wallet.set_limit(args[0] + 300, *args[1:])
    elif kind == "exclude":
        wallet.self_exclude(args[0] + 400, wallet.now + timedelta(hours=args[1]))
    elif kind == "stale":
        wallet.deposit(args[0], args[1], sent_at=wallet.now - timedelta(milliseconds=DEDUP_WINDOW_MS * 2))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, max_size=40))
def test_any_command_sequence_keeps_the_ledger_sound_and_the_state_a_fold_of_its_events(sequence):
    wallet, first_sent_at = Wallet(), {}
    for step in sequence:
        apply(wallet, step, first_sent_at)
        assert all(balance >= 0 for balance in wallet.state.player.balances_minor.values())
    closings: dict[str, set[str]] = {}
    debited: set[str] = set()
    for event in wallet.emitted:
        postings = getattr(event.data, "postings", ())
        assert postings_balanced(postings)
        if isinstance(event.data, WagerDebited):
            debited.add(str(event.data.transaction_id))
        if isinstance(event.data, (WagerSettled, WagerRefunded)):
            closings.setdefault(str(event.data.wager_id), set()).add(str(event.id))
    assert all(len(ids) == 1 for ids in closings.values())
    assert set(closings) <= debited
    folded = WALLET.given(*wallet.emitted).state
    assert folded.state_of(PLAYER).player == wallet.state.player
    assert folded.state_of(PLAYER).memory == wallet.state.memory
    assert wallet.book.liabilities_minor == folded.liabilities_minor == _summed(wallet.book)


def _summed(book) -> dict[str, int]:
    """The players' balances added up by currency, the long way."""
    totals: dict[str, int] = {}
    for player in book.players.values():
        for currency, balance_minor in player.balances_minor.items():
            totals[currency] = totals.get(currency, 0) + balance_minor
    return totals
