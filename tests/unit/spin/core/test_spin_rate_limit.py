"""A flood guard per player: once SPIN_RATE.spins spins of a player were accepted within SPIN_RATE.window_ms of
broker time, the next is refused RATE_LIMITED and nothing is debited; once the oldest leaves the window, spins are
accepted again; another player is not affected; a book rebuilt from the journal limits alike."""

from services.spin.core.book import SPIN_RATE
from shared.events import broker_time
from shared.events.spin import SpinRejected
from tests.support.spin import NOW_MS, make_context, one, request, request_bytes, spin_core, wager


def _spin(given, player="p-1", at_ms=NOW_MS):
    raw = request_bytes(player=player, time_ms=at_ms)[1]
    return given.when(request(raw, player.encode(), at_ms), broker_time(at_ms))


def _accepted_until_full(given) -> list:
    journal = []
    for n in range(SPIN_RATE.spins):
        accepted = _spin(given, at_ms=NOW_MS + n)
        assert wager(accepted.decision) is not None
        journal += accepted.decision.events
    return journal


def _code(then) -> str:
    return one(then.decision.answers, SpinRejected).data.code


def test_the_spin_beyond_the_rate_is_refused_and_debits_nothing_while_another_player_spins():
    given = spin_core(make_context()).given()
    _accepted_until_full(given)
    refused = _spin(given, at_ms=NOW_MS + SPIN_RATE.spins).then().then_commands()
    assert _code(refused) == "RATE_LIMITED"
    assert wager(_spin(given, player="p-2", at_ms=NOW_MS + SPIN_RATE.spins).decision) is not None


def test_once_the_oldest_spin_leaves_the_window_the_player_spins_again():
    given = spin_core(make_context()).given()
    _accepted_until_full(given)
    later = NOW_MS + SPIN_RATE.window_ms  # the first accepted spin (at NOW_MS) is now a whole window old
    assert wager(_spin(given, at_ms=later).decision) is not None
    assert _code(_spin(given, at_ms=later)) == "RATE_LIMITED"


def test_a_book_rebuilt_from_the_journal_limits_the_same_spin():
    ctx = make_context()
    live = spin_core(ctx).given()
    journal = _accepted_until_full(live)
    rebuilt = spin_core(ctx).given(*journal)
    assert rebuilt.state.accepted_at == live.state.accepted_at
    assert _code(_spin(rebuilt, at_ms=NOW_MS + 1)) == "RATE_LIMITED"
