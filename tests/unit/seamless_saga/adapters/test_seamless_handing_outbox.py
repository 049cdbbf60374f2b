"""The running saga's outbox against a stand-in loop (its books and lock) and a hand-written wallet: a call owed is made
once and its outcome handed to the loop as a RecordCallOutcome that decides as the CallOutcome itself would; an attempt
in flight or handed is not made again until the loop has decided it; a bet found past its deadline is handed
unanswered, unsent, and the core rolls it back; a slow call holds up no other round's hand-over; a failed hand-over
stops the run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from seamless.port import AnyCall, Answered, NoAnswer, Status
from shared.decision import Message
from shared.events import decode
from shared.events.envelope import epoch_ms
from shared.events.seamless import RecordCallOutcome, SeamlessBetAccepted, SeamlessRollbackDecided

from services.seamless_saga.adapters.committed import CommittedOwing
from services.seamless_saga.adapters.handing import NOT_SENT, HandingOutbox
from services.seamless_saga.core.handed import taken
from tests.support.seamless_saga import CORE, OPERATOR, SAGA, T0, at, debit


def Loop(states: dict[int, Any]) -> CommittedOwing:  # noqa: N802 - reads as the stand-in it replaced
    """What the outbox reads: the books' owing rounds as committed (each book here taken as restored)."""
    owing = CommittedOwing()
    for partition, book in states.items():
        owing.restored(partition, book)
    return owing


@dataclass
class Wallet:
    calls: list[AnyCall] = field(default_factory=list)

    async def call(self, call: AnyCall) -> Answered:
        self.calls.append(call)
        return Answered(request_id=call.request_id, status=Status.OK, balance_minor=900, operator_status="RS_OK")


@dataclass
class Producer:
    sent: list[tuple[str, bytes, bytes]] = field(default_factory=list)

    async def send_and_wait(self, topic: str, value: bytes, *, key: bytes, headers: Any) -> None:
        self.sent.append((topic, key, value))


def _outbox(book, now) -> tuple[HandingOutbox, Wallet, Producer]:
    wallet, producer = Wallet(), Producer()
    outbox = HandingOutbox(Loop({0: book}), {OPERATOR: wallet}, producer, "p.wallet.seamless-calls", clock=lambda: now)
    return outbox, wallet, producer


def _handed(producer: Producer) -> list[RecordCallOutcome]:
    return [decode(value).data for _, _, value in producer.sent]


async def test_a_bet_owed_is_called_once_and_its_outcome_handed_decides_as_the_answer_itself():
    decided = SAGA.given().when(debit(1), T0)
    book, bet = decided.state, decided.decision.events[0]
    outbox, wallet, producer = _outbox(book, T0)
    assert await outbox.step() == 1
    assert await outbox.step() == 0  # in flight: not made again
    await outbox.landed()
    assert await outbox.step() == 0  # handed, not decided yet: not made again
    assert [call.request_id for call in wallet.calls] == [bet.id]
    (handed,) = _handed(producer)
    assert (handed.call_id, handed.attempt, handed.status, handed.balance_minor) == (bet.id, 1, "OK", 900)
    assert producer.sent[0][0] == "p.wallet.seamless-calls" and producer.sent[0][1] == b"player-1"

    message = Message(decode(producer.sent[0][2]), epoch_ms(T0))
    accepted = CORE.decide(book, message, T0)
    assert [type(event.data) for event in accepted.events][1:] == [SeamlessBetAccepted]
    assert taken(handed).outcome == Answered(
        request_id=bet.id, status=Status.OK, balance_minor=900, operator_status="RS_OK"
    )
    assert await outbox.step() == 0  # decided: the round owes nothing until its settlement


async def test_a_bet_past_its_deadline_is_handed_unanswered_never_sent_and_rolled_back():
    book = SAGA.given().when(debit(1), T0).state
    late = at(5_001)
    outbox, wallet, producer = _outbox(book, late)
    assert await outbox.step() == 1
    await outbox.landed()
    assert wallet.calls == []
    (handed,) = _handed(producer)
    assert (handed.no_answer, handed.detail) == ("TIMEOUT", NOT_SENT)
    assert isinstance(taken(handed).outcome, NoAnswer)
    decided = CORE.decide(book, Message(decode(producer.sent[0][2]), epoch_ms(late)), late)
    assert SeamlessRollbackDecided in [type(event.data) for event in decided.events]


@dataclass
class SlowFor(Wallet):
    """Answers every call at once but those of `slow_player`, which wait for `release`."""

    slow_player: str = ""
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def call(self, call: AnyCall) -> Answered:
        if call.player_id == self.slow_player:
            await self.release.wait()
        return await super().call(call)


async def test_a_slow_call_holds_up_no_other_rounds_hand_over():
    book = SAGA.given().when(debit(1, player_id="slow"), T0).when(debit(2, player_id="quick"), T0).state
    wallet, producer = SlowFor(slow_player="slow"), Producer()
    outbox = HandingOutbox(Loop({0: book}), {OPERATOR: wallet}, producer, "p.wallet.seamless-calls", clock=lambda: T0)
    assert await outbox.step() == 2
    for _ in range(20):
        await asyncio.sleep(0)
    assert [key for _, key, _ in producer.sent] == [b"quick"]  # handed while the slow one is still in flight
    assert await outbox.step() == 0
    wallet.release.set()
    await outbox.landed()
    assert sorted(key for _, key, _ in producer.sent) == [b"quick", b"slow"]


@dataclass
class Failing(Producer):
    async def send_and_wait(self, topic: str, value: bytes, *, key: bytes, headers: Any) -> None:
        raise ConnectionError("the broker is away")


async def test_a_failed_hand_over_stops_the_run_with_its_error():
    book = SAGA.given().when(debit(1), T0).state
    outbox = HandingOutbox(
        Loop({0: book}), {OPERATOR: Wallet()}, Failing(), "p.wallet.seamless-calls", clock=lambda: T0
    )
    try:
        await asyncio.wait_for(outbox.run(asyncio.Event()), timeout=5)
    except ConnectionError as error:
        assert "away" in str(error)
    else:
        raise AssertionError("the run went on past a failed hand-over")
    assert outbox.flying == {}


async def test_a_call_a_commit_made_owed_is_made_at_once_not_at_the_idle_outboxs_next_look(monkeypatch):
    monkeypatch.setattr("services.seamless_saga.adapters.handing.IDLE_WAIT_S_MAX", 100.0)  # next look in 10 s
    owing, wallet, committed, stop = Loop({0: SAGA.given().state}), Wallet(), asyncio.Event(), asyncio.Event()
    outbox = HandingOutbox(owing, {OPERATOR: wallet}, Producer(), "p.wallet.seamless-calls", lambda: T0, committed)
    running = asyncio.create_task(outbox.run(stop))
    for _ in range(20):
        await asyncio.sleep(0)  # idle: nothing owed, waiting
    owing.decided(0, SAGA.given().when(debit(1), T0).state)  # the loop decides a bet, then commits it
    owing.committed(0)
    committed.set()
    try:
        for _ in range(200):
            if wallet.calls:
                break
            await asyncio.sleep(0.005)
        assert len(wallet.calls) == 1, "the bet waited for the idle outbox's next look"
    finally:
        stop.set()
        await asyncio.wait_for(running, timeout=5)
