"""A flood guard per player: once SPIN_RATE.spins spins of a player were accepted within SPIN_RATE.window_ms of
broker time, the next is refused RATE_LIMITED and nothing is debited; once the oldest leaves the window, spins are
accepted again; another player is not affected; a book rebuilt from the journal limits alike."""

from services.spin.core.book import SPIN_RATE, SpinBook
from services.spin.core.evolve import evolve
from shared.events import decode
from tests.support.spin import NOW_MS, decoded, handle_request, make_context, only, read_back, request_bytes, wager_out


def _spin(book, ctx, player="p-1", at_ms=NOW_MS):
    return handle_request(book, ctx, request_bytes(player=player, time_ms=at_ms)[1], player.encode(), at_ms, 0, 0)


def _accepted_until_full(book, ctx) -> list:
    journal = []
    for n in range(SPIN_RATE.spins):
        effects = _spin(book, ctx, at_ms=NOW_MS + n)
        assert wager_out(effects.outputs) is not None
        journal += effects.journal
    return journal


def test_the_spin_beyond_the_rate_is_refused_and_debits_nothing_while_another_player_spins():
    book, ctx = SpinBook(), make_context()
    _accepted_until_full(book, ctx)
    refused = _spin(book, ctx, at_ms=NOW_MS + SPIN_RATE.spins)
    assert decoded(only(refused.outputs, "answer")).code == "RATE_LIMITED"
    assert refused.journal == [] and [out for out in refused.outputs if out.kind == "debit"] == []
    assert wager_out(_spin(book, ctx, player="p-2", at_ms=NOW_MS + SPIN_RATE.spins).outputs) is not None


def test_once_the_oldest_spin_leaves_the_window_the_player_spins_again():
    book, ctx = SpinBook(), make_context()
    _accepted_until_full(book, ctx)
    later = NOW_MS + SPIN_RATE.window_ms  # the first accepted spin (at NOW_MS) is now a whole window old
    assert wager_out(_spin(book, ctx, at_ms=later).outputs) is not None
    assert decoded(only(_spin(book, ctx, at_ms=later).outputs, "answer")).code == "RATE_LIMITED"


def test_a_book_rebuilt_from_the_journal_limits_the_same_spin():
    live, ctx = SpinBook(), make_context()
    journal = _accepted_until_full(live, ctx)
    rebuilt = SpinBook()
    for out in journal:
        evolve(rebuilt, read_back(decode(out.value), out.value))
    assert rebuilt.accepted_at == live.accepted_at
    assert decoded(only(_spin(rebuilt, ctx, at_ms=NOW_MS + 1).outputs, "answer")).code == "RATE_LIMITED"
