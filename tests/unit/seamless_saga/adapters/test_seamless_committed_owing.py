"""The outbox calls only on what is logged: with the saga's loop pipelined, a book may hold facts whose transaction is
in flight, and the outbox reads the books' owing rounds as each batch committed, in the order the batches were
decided; a restored book is all committed."""

from __future__ import annotations

import pytest

from services.seamless_saga.adapters.committed import CommittedOwing
from services.seamless_saga.adapters.handing import HandingOutbox
from tests.support.seamless_saga import OPERATOR, SAGA, T0, answer, at, debit, wager_id
from tests.unit.seamless_saga.adapters.test_seamless_handing_outbox import Producer, Wallet


def _outbox(owing: CommittedOwing) -> tuple[HandingOutbox, Wallet]:
    wallet = Wallet()
    return HandingOutbox(owing, {OPERATOR: wallet}, Producer(), "p.wallet.seamless-calls", lambda: at(40)), wallet


async def test_a_bet_decided_is_called_only_once_its_batch_has_committed():
    owing, given = CommittedOwing(), SAGA.given()
    owing.restored(0, given.state)
    bet = given.when(debit(1), T0).decision.events[0]
    owing.decided(0, given.state)  # in flight
    outbox, wallet = _outbox(owing)
    assert await outbox.step() == 0 and wallet.calls == []
    owing.committed(0)
    assert await outbox.step() == 1
    await outbox.landed()
    assert [call.request_id for call in wallet.calls] == [bet.id]


def test_each_partitions_batches_are_published_in_the_order_they_were_decided():
    owing, given = CommittedOwing(), SAGA.given()
    bet = given.when(debit(1), T0).decision.events[0]
    owing.decided(0, given.state)  # batch 1: the bet owed
    given.when(answer(bet), at(30))
    owing.decided(0, given.state)  # batch 2: accepted, nothing owed
    owing.committed(0)
    assert [round_.open_call.kind for round_ in owing.rounds()] == ["bet"]  # batch 2 still in flight
    owing.committed(0)
    assert list(owing.rounds()) == []


def test_what_a_view_published_does_not_move_with_the_book_after_it():
    owing, given = CommittedOwing(), SAGA.given()
    bet = given.when(debit(1), T0).decision.events[0]
    owing.decided(0, given.state)
    owing.committed(0)
    given.when(answer(bet), at(30))  # decided, not yet committed: the book's round moves on
    assert [round_.open_call.kind for round_ in owing.rounds()] == ["bet"]


def test_a_restored_book_is_published_whole_and_a_batch_carries_only_the_rounds_it_changed():
    given = SAGA.given()
    bets = [given.when(debit(n), T0).decision.events[0] for n in (1, 2, 3)]
    owing = CommittedOwing()
    owing.restored(0, given.state)  # the service tells it from its restore, before the loop decides a batch of it
    assert len(list(owing.rounds())) == 3 and owing.is_open(str(bets[0].id), 1)
    given.when(answer(bets[0]), at(30))  # accepted: owes nothing now
    owing.decided(0, given.state)
    assert list(owing._decided[0][0]) == [str(wager_id(1))]  # the batch's change: the one round it touched
    owing.committed(0)
    assert len(list(owing.rounds())) == 2 and not owing.is_open(str(bets[0].id), 1)
    assert owing.is_open(str(bets[1].id), 1) and not owing.is_open(str(bets[1].id), 2)


def test_a_commit_without_its_decision_is_a_broken_invariant_and_a_released_partition_is_forgotten():
    owing = CommittedOwing()
    with pytest.raises(AssertionError):
        owing.committed(3)
    owing.restored(3, SAGA.given().when(debit(1), T0).state)
    owing.released(3)
    assert list(owing.rounds()) == []
