"""One settlement still: whatever the operator's wallet answers, in whatever order time passes, a round ends in one
bet and either one acknowledged win or one acknowledged rollback (or a sure refusal, or a win reported after its
retry time), and never decides both a win and a rollback."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

from seamless.port import NoAnswerReason, Status
from shared.events.envelope import epoch_ms

from services.seamless_saga.core.messages import Tick
from services.seamless_saga.core.state import OPEN_PHASES, Phase
from tests.support.seamless_saga import SAGA, T0, answer, at, debit, no_answer, place, refund, settle, wager_id

_STATUSES = [Status.OK] * 6 + [Status.ERROR, Status.INSUFFICIENT_FUNDS, Status.SESSION_GONE, Status.UNKNOWN_TRANSACTION]
_TERMINAL = {
    Phase.WON: "SeamlessWinAcknowledged",
    Phase.ROLLED_BACK: "SeamlessRolledBack",
    Phase.REPORTED: "SeamlessWinReported",
    Phase.REFUSED: "SeamlessBetRefused",
}


def _outcome(rng: random.Random, owed, envelope_of):
    call = envelope_of[owed.call_id]
    if rng.random() < 0.3:
        return no_answer(call, rng.choice(list(NoAnswerReason)), owed.attempt)
    return answer(call, rng.choice(_STATUSES), attempt=owed.attempt)


def _play(rng: random.Random, n: int):
    """One round against a random wallet: answers (some repeated, some late), ticks and the spin's settlement."""
    given, now, events = SAGA.given(), T0, []
    opening = place(n, 100, 30) if rng.random() < 0.5 else debit(n)
    events += given.when(opening, now).decision.events
    for _ in range(400):
        round_ = given.state.rounds[str(wager_id(n))]
        if round_.phase not in OPEN_PHASES:
            break
        now += timedelta(milliseconds=rng.choice([10, 400, 3_000, 6_000, 3_600_000 * 6]))
        envelope_of = {str(event.id): event for event in events}
        if round_.phase is Phase.ACCEPTED:
            message = refund(n) if rng.random() < 0.2 else settle(n, rng.choice([0, 0, 250]))
        elif rng.random() < 0.2:
            message = Tick()
        else:
            owed = round_.open_call
            now = max(now, T0 + timedelta(milliseconds=owed.due_ms - epoch_ms(T0)))
            message = _outcome(rng, owed, envelope_of)
            if rng.random() < 0.1:  # the same answer delivered twice
                events += given.when(message, now).decision.events
        events += given.when(message, now).decision.events
    return given.state.rounds[str(wager_id(n))], Counter(type(event.data).__name__ for event in events)


def test_every_round_ends_in_one_bet_and_one_win_or_one_rollback_whatever_the_wallet_answers():
    rng = random.Random(47)
    ends = Counter()
    for n in range(1, 301):
        round_, kinds = _play(rng, n)
        assert round_.phase not in OPEN_PHASES, (n, round_.phase)
        ends[round_.phase] += 1
        assert kinds["SeamlessBetDecided"] == 1
        assert kinds["SeamlessWinDecided"] + kinds["SeamlessRollbackDecided"] <= 1, kinds
        assert kinds[_TERMINAL[round_.phase]] == 1, (round_.phase, kinds)
        assert kinds["SeamlessWinAcknowledged"] + kinds["SeamlessRolledBack"] + kinds["SeamlessWinReported"] <= 1
        if round_.phase is Phase.REFUSED:
            assert kinds["SeamlessRollbackDecided"] == 0
    assert ends[Phase.WON] and ends[Phase.ROLLED_BACK] and ends[Phase.REFUSED], ends  # the run met each ending


def _owing_is_every_round_with_a_call_owed(book) -> None:
    assert book.owing == {wager: round_ for wager, round_ in book.rounds.items() if round_.open_call is not None}


def test_the_rounds_owing_a_call_are_indexed_through_every_phase_and_past_the_window():
    """The outbox looks only at the rounds owing a call (at every commit), never the window of closed ones."""
    given = SAGA.given()
    bets = {n: given.when(debit(n), T0).decision.events[0] for n in (1, 2, 3, 4)}
    _owing_is_every_round_with_a_call_owed(given.state)
    assert len(given.state.owing) == 4
    given.when(answer(bets[1]), at(30))  # accepted: owes nothing until its settlement
    given.when(answer(bets[2], Status.INSUFFICIENT_FUNDS), at(30))  # surely refused: closed
    given.when(no_answer(bets[3]), at(30))  # in doubt: its rollback is owed
    _owing_is_every_round_with_a_call_owed(given.state)
    assert set(given.state.owing) == {str(wager_id(3)), str(wager_id(4))}
    win = given.when(settle(1, 250), at(100)).decision.events[0]
    given.when(no_answer(win), at(200))  # a retry scheduled: still owed, at a later time
    _owing_is_every_round_with_a_call_owed(given.state)
    assert str(wager_id(1)) in given.state.owing
    given.when(answer(win, attempt=2), at(2_000))  # acknowledged: closed
    _owing_is_every_round_with_a_call_owed(given.state)
    late = T0 + timedelta(days=2)  # the closed rounds pruned past the window; the owing ones stay
    given.when(no_answer(bets[4]), late)  # its bet in doubt: refused, its rollback owed
    _owing_is_every_round_with_a_call_owed(given.state)
    assert str(wager_id(2)) not in given.state.rounds
    assert set(given.state.owing) == {str(wager_id(3)), str(wager_id(4))}
