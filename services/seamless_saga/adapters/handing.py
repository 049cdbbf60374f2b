"""The running saga's outbox: makes the calls owed as the books' batches committed (adapters/committed.py), one attempt
each, and hands each outcome to the loop on wallet.seamless-calls, whose decision writes it as a fact. A bet found past
its deadline is not sent: it is handed as unanswered, and the core rolls it back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from seamless.port import NoAnswer, NoAnswerReason, WalletPort
from shared import records
from shared.events import encode
from shared.events.envelope import epoch_ms
from shared.topics import WALLET_SEAMLESS_CALLS

from services.seamless_saga.adapters.committed import CommittedOwing
from services.seamless_saga.adapters.kafka_log import WRITER
from services.seamless_saga.adapters.outbox import CALLS_IN_FLIGHT_MAX, IDLE_WAIT_S_MAX, utc_now
from services.seamless_saga.core.answers import expired
from services.seamless_saga.core.calls import call_of
from services.seamless_saga.core.handed import handed
from services.seamless_saga.core.messages import CallOutcome
from services.seamless_saga.core.state import OpenCall, Round

NOT_SENT = "not sent: the bet was past its deadline"


class HandingOutbox:
    """`producer`: the saga role's (started); `topic`: wallet.seamless-calls' physical name. Calls run side by side
    (at most CALLS_IN_FLIGHT_MAX at once), each outcome handed as soon as it lands, so one slow operator call holds up
    only its own round."""

    def __init__(
        self,
        owing: CommittedOwing,
        clients: Mapping[str, WalletPort],
        producer: Any,
        topic: str,
        clock: Callable[[], datetime] = utc_now,
        committed: asyncio.Event | None = None,
    ) -> None:
        self.owing, self.clients, self.producer, self.topic, self.clock = owing, clients, producer, topic, clock
        # Set by the loop's service when a transaction with facts commits: a call it made owed is made at once, not
        # at the idle outbox's next look (a wait on the answer's path, once a call).
        self.committed = committed if committed is not None else asyncio.Event()
        # (call id, attempt) handed and not yet decided by the loop: not made again meanwhile.
        self.handed: set[tuple[str, int]] = set()
        self.flying: dict[tuple[str, int], asyncio.Task[None]] = {}  # made, outcome not handed yet
        self.failure: BaseException | None = None  # a hand-over that failed: the run stops on it
        self._landed = asyncio.Event()

    async def step(self) -> int:
        """Start the calls owed now that are neither in flight nor handed, while fewer than CALLS_IN_FLIGHT_MAX fly;
        the number started."""
        now_ms = epoch_ms(self.clock())
        owed = self.owing.due(now_ms)
        self.handed = {pair for pair in self.handed if self.owing.is_open(*pair)}  # the loop has decided the rest
        busy, room = self.handed | self.flying.keys(), max(0, CALLS_IN_FLIGHT_MAX - len(self.flying))
        owed = [(r, c) for r, c in owed if (c.call_id, c.attempt) not in busy][:room]
        for round_, call in owed:
            pair = (call.call_id, call.attempt)
            self.flying[pair] = asyncio.ensure_future(self._make(round_, call, now_ms, pair))
        return len(owed)

    async def landed(self) -> None:
        """Every call in flight made and its outcome handed (or failed: `failure`)."""
        if self.flying:
            await asyncio.gather(*self.flying.values(), return_exceptions=True)

    async def _make(self, round_: Round, call: OpenCall, now_ms: int, pair: tuple[str, int]) -> None:
        try:
            outcome = await self._attempt(round_, call, now_ms)
            await self._hand(round_.player_id, outcome)
            self.handed.add(pair)
        except Exception as error:  # kept for the run to raise, not left on a task nobody awaits
            self.failure = self.failure or error
        finally:
            del self.flying[pair]
            self._landed.set()

    async def _attempt(self, round_: Round, owed: OpenCall, now_ms: int) -> CallOutcome:
        if owed.kind == "bet" and expired(round_, now_ms):
            unsent = NoAnswer(request_id=owed.call_id, reason=NoAnswerReason.TIMEOUT, detail=NOT_SENT)
            return CallOutcome(owed.call_id, owed.attempt, unsent)
        outcome = await self.clients[round_.operator_id].call(call_of(round_, owed))
        return CallOutcome(owed.call_id, owed.attempt, outcome)

    async def _hand(self, player_id: str, outcome: CallOutcome) -> None:
        event = handed(player_id, outcome, self.clock())
        value, key = encode(event), event.key
        headers = records.signed_headers(WRITER, WALLET_SEAMLESS_CALLS, key, value)
        await self.producer.send_and_wait(self.topic, value, key=key, headers=headers)

    async def run(self, stop: asyncio.Event) -> None:
        """Step until `stop` is set, waiting while nothing new is due for a call to land or the loop to commit facts,
        at most IDLE_WAIT_S_MAX / 10 (a bet's deadline is checked that often); a failed hand-over stops the run with
        its error. Calls still in flight at the stop are cancelled: their rounds owe them again after a restart."""
        try:
            while not stop.is_set():
                if self.failure is not None:
                    raise self.failure
                self._landed.clear()  # before the step: a call landing or facts committed during it cut the wait short
                self.committed.clear()
                if await self.step():
                    continue
                waits = [stop.wait(), self._landed.wait(), self.committed.wait()]
                waits = [asyncio.ensure_future(waiting) for waiting in waits]
                try:
                    await asyncio.wait(waits, timeout=IDLE_WAIT_S_MAX / 10, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiting in waits:
                        waiting.cancel()
        finally:
            for task in list(self.flying.values()):
                task.cancel()
            await self.landed()
