"""The outbox: makes the calls the seamless book owes (a fold of wallet.seamless, so they survive a restart), one
attempt each, through the operator's client, and hands each outcome back to the core, whose facts are appended to
wallet.seamless before any call they decide is made. The call's id is the event id that decided it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, Protocol

from seamless.port import WalletPort
from shared.decision import Decision, Message
from shared.events.envelope import Envelope, epoch_ms

from services.seamless_saga.core.calls import call_of
from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.messages import CallOutcome, Tick
from services.seamless_saga.core.state import OpenCall, Round, SeamlessBook

# Calls made at once per step: a bounded burst per operator pool of keep-alive connections (seamless/client.py).
CALLS_IN_FLIGHT_MAX = 32
# The longest an idle outbox sleeps before it looks again (a bet's deadline is checked at least this often).
IDLE_WAIT_S_MAX = 0.5


class SeamlessLog(Protocol):
    """Where the saga's facts go: appended in order, durably, before anything acts on them."""

    async def append(self, events: tuple[Envelope[Any], ...]) -> None: ...


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Outbox:
    def __init__(
        self,
        core: SeamlessCore,
        book: SeamlessBook,
        clients: Mapping[str, WalletPort],
        log: SeamlessLog,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.core, self.book, self.clients, self.log, self.clock = core, book, clients, log, clock

    async def decide(self, message: Message | CallOutcome | Tick) -> Decision:
        """One message decided at the clock's now; its facts appended before this returns."""
        decision = self.core.decide(self.book, message, self.clock())
        if decision.events:
            await self.log.append(decision.events)
        return decision

    async def step(self) -> int:
        """Roll back the bets past their deadline, then make the calls owed now (one attempt each, at most
        CALLS_IN_FLIGHT_MAX) and decide on each outcome; the number of calls made."""
        await self.decide(Tick())
        owed = self.book.due(epoch_ms(self.clock()))[:CALLS_IN_FLIGHT_MAX]
        outcomes = await asyncio.gather(*(self._attempt(round_, call) for round_, call in owed))
        for outcome in outcomes:
            await self.decide(outcome)
        return len(owed)

    async def _attempt(self, round_: Round, owed: OpenCall) -> CallOutcome:
        outcome = await self.clients[round_.operator_id].call(call_of(round_, owed))
        return CallOutcome(owed.call_id, owed.attempt, outcome)

    async def run(self, stop: asyncio.Event) -> None:
        """Step until `stop` is set, sleeping while nothing is due (at most IDLE_WAIT_S_MAX)."""
        while not stop.is_set():
            if await self.step():
                continue
            next_ms = self.book.next_due_ms()
            wait_s = IDLE_WAIT_S_MAX if next_ms is None else (next_ms - epoch_ms(self.clock())) / 1000
            try:
                await asyncio.wait_for(stop.wait(), timeout=min(max(wait_s, 0.0), IDLE_WAIT_S_MAX))
            except TimeoutError:
                pass
