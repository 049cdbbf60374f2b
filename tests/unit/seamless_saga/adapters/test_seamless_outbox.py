"""The outbox against a hand-written wallet: each call owed is made once per attempt with the deciding event's id as
its request and transaction id, only after that event is in the log; what it gets is decided and logged; a restart
(a book folded from the log) owes exactly what the stopped outbox did; a bet found past its deadline is rolled back,
never sent."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from seamless.port import AnyCall, Answered, NoAnswer, NoAnswerReason, Outcome, Status
from shared.decision import Message
from shared.events.envelope import Envelope, epoch_ms
from shared.events.seamless import (
    SeamlessBetDecided,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
)

from services.seamless_saga.adapters.outbox import Outbox
from tests.support.seamless_saga import CORE, OPERATOR, SAGA, T0, debit, settle


@dataclass
class Log:
    events: list[Envelope[Any]] = field(default_factory=list)

    async def append(self, events: tuple[Envelope[Any], ...]) -> None:
        self.events.extend(events)

    def of(self, kind: type) -> list[Envelope[Any]]:
        return [event for event in self.events if isinstance(event.data, kind)]


@dataclass
class Wallet:
    """Answers from a script (default OK); remembers every call and checks its decision was logged first."""

    log: Log
    script: list[Outcome | None] = field(default_factory=list)
    calls: list[AnyCall] = field(default_factory=list)

    async def call(self, call: AnyCall) -> Outcome:
        assert call.request_id in {event.id for event in self.log.events}, "a call is made only after its decision"
        assert call.request_id == call.transaction_id
        self.calls.append(call)
        scripted = self.script.pop(0) if self.script else None
        if scripted is not None:
            return scripted.model_copy(update={"request_id": call.request_id})
        return Answered(request_id=call.request_id, status=Status.OK, balance_minor=1_000, operator_status="OK")


@dataclass
class Clock:
    now: datetime = T0

    def __call__(self) -> datetime:
        return self.now


def an_outbox(script=(), clock=None, log=None):
    log = log or Log()
    wallet = Wallet(log, list(script))
    clock = clock or Clock()
    return Outbox(CORE, CORE.new_state(0), {OPERATOR: wallet}, log, clock), wallet, log, clock


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_round_is_one_bet_call_and_one_win_call_each_made_once_with_the_deciding_events_id():
    outbox, wallet, log, clock = an_outbox()
    run(outbox.decide(Message(debit(1), epoch_ms(T0))))
    assert run(outbox.step()) == 1
    clock.now += timedelta(milliseconds=50)
    run(outbox.decide(Message(settle(1, 250), epoch_ms(clock.now))))
    assert run(outbox.step()) == 1
    assert run(outbox.step()) == 0
    assert [call.kind for call in wallet.calls] == ["bet", "win"]
    assert wallet.calls[0].request_id == log.of(SeamlessBetDecided)[0].id
    assert wallet.calls[1].request_id == log.of(SeamlessWinDecided)[0].id and wallet.calls[1].amount_minor == 250
    (acknowledged,) = log.of(SeamlessWinAcknowledged)
    assert acknowledged.data.balance_after_minor == 1_000


def test_a_bet_without_an_answer_is_rolled_back_once_and_the_rollback_retried_until_acknowledged():
    timeout = NoAnswer(request_id=uuid.uuid4(), reason=NoAnswerReason.TIMEOUT)
    error = Answered(request_id=uuid.uuid4(), status=Status.ERROR, operator_status="RS_ERROR_UNKNOWN")
    outbox, wallet, log, clock = an_outbox([timeout, error])
    run(outbox.decide(Message(debit(1), epoch_ms(T0))))
    run(outbox.step())  # the bet: no answer
    run(outbox.step())  # the rollback: an error, retried after back-off
    assert run(outbox.step()) == 0  # not due yet
    clock.now += timedelta(seconds=2)
    run(outbox.step())
    assert [call.kind for call in wallet.calls] == ["bet", "rollback", "rollback"]
    assert wallet.calls[1].request_id == wallet.calls[2].request_id  # a retry is the same request
    assert len(log.of(SeamlessRolledBack)) == 1


def test_a_restarted_outbox_owes_what_the_stopped_one_did_and_makes_it_as_the_same_request():
    outbox, wallet, log, clock = an_outbox([NoAnswer(request_id=uuid.uuid4(), reason=NoAnswerReason.LOST)])
    run(outbox.decide(Message(debit(1), epoch_ms(T0))))
    run(outbox.step())
    clock.now += timedelta(milliseconds=10)
    run(outbox.decide(Message(debit(2), epoch_ms(clock.now))))
    restored = SAGA.given(*log.events).state  # the stopped outbox's facts, folded as a restore folds them
    again = Outbox(CORE, restored, {OPERATOR: wallet}, log, clock)
    assert run(again.step()) == 2  # round 1's rollback and round 2's bet
    assert [call.kind for call in wallet.calls] == ["bet", "rollback", "bet"]
    assert wallet.calls[2].request_id == log.of(SeamlessBetDecided)[1].id


def test_a_bet_found_past_its_deadline_is_rolled_back_and_never_sent():
    outbox, wallet, log, clock = an_outbox()
    run(outbox.decide(Message(debit(1), epoch_ms(T0))))
    clock.now += timedelta(seconds=6)  # the outbox was down past the bet's 5 s
    run(outbox.step())
    assert [call.kind for call in wallet.calls] == ["rollback"]
    assert len(log.of(SeamlessRolledBack)) == 1


def test_a_running_outbox_makes_what_falls_due_and_stops_when_told():
    async def scenario():
        outbox, wallet, log, clock = an_outbox()
        stop = asyncio.Event()
        running = asyncio.create_task(outbox.run(stop))
        await outbox.decide(Message(debit(1), epoch_ms(T0)))
        for _ in range(200):  # bounded: the outbox looks again at least every IDLE_WAIT_S_MAX
            if wallet.calls:
                break
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(running, timeout=2)
        return wallet.calls

    assert [call.kind for call in run(scenario())] == ["bet"]
