"""A seamless operator's Rising Joker player at the core level: the real spin core and engine, the seamless saga's core,
and a hand-written operator wallet answering the calls the saga's book owes, each record passed between them as the
services pass them (encoded and decoded), so a test sees every call the operator got and every answer the player got."""

from __future__ import annotations

import dataclasses
from typing import Any

from seamless.port import Answered, BetCall, MoneyCall, RollbackCall, Status, WinCall
from shared import operators, records
from shared.decision import Message
from shared.events import Envelope, decode, encode
from shared.operators import Operator, SeamlessWallet, seamless_wallet_of

from services.seamless_saga.core.calls import call_of
from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.messages import CallOutcome
from services.seamless_saga.core.route import WAGER_COMMANDS
from services.spin.core.decide import SpinCore
from services.spin.core.evolve import game_state
from tests.support.remainders import ENGINE, NOW, as_records
from tests.support.spin import NOW_MS, Seeds, fact, make_context, request, request_bytes

OPERATOR = "op-s"
WALLET = SeamlessWallet("http://wallet.op-s.test", "hub88", "reelstream-1", "/keys/op-s.pem", 1_000, 5_000, 86_400)
OPERATORS = (Operator(OPERATOR, "seamless", WALLET),)
START_MINOR = 10_000


class OperatorWallet:
    """The operator's wallet: OK to every call (a bet refused with `refuse_bets`), with its balance after the call
    unless `with_balance` is off (an answer shape where the balance is optional)."""

    def __init__(self, balance_minor: int = START_MINOR) -> None:
        self.balance_minor = balance_minor
        self.with_balance = True
        self.refuse_bets: Status | None = None
        self.calls: list[MoneyCall] = []

    def answer(self, call: MoneyCall) -> Answered:
        self.calls.append(call)
        status = Status.OK
        if isinstance(call, BetCall) and self.refuse_bets is not None:
            status = self.refuse_bets
        elif isinstance(call, BetCall):
            self.balance_minor -= call.amount_minor
        elif isinstance(call, WinCall):
            self.balance_minor += call.amount_minor
        else:
            assert isinstance(call, RollbackCall)
        balance_minor = self.balance_minor if self.with_balance else None
        return Answered(request_id=call.request_id, status=status, balance_minor=balance_minor, operator_status="RS_OK")

    def of_kind(self, kind: type) -> list[Any]:
        return [call for call in self.calls if isinstance(call, kind)]


class SeamlessPair:
    """One seamless player's spin book and the saga's book; `answers` and `journal` hold the spin's answers and journal
    facts, `seamless` the saga's facts, in the order they were written."""

    def __init__(self, monkeypatch, *seeds: bytes) -> None:
        monkeypatch.setattr(operators, "CONFIGURED", OPERATORS)
        ctx = dataclasses.replace(make_context(Seeds(*seeds), slot=ENGINE), token_operator=lambda _token: OPERATOR)
        self.ctx, self.spins = ctx, SpinCore(ctx)
        self.book = self.spins.new_state(0)
        self.saga = SeamlessCore(lambda: 0.0, lambda operator_id: seamless_wallet_of(operator_id, OPERATORS))
        self.rounds = self.saga.new_state(0)
        self.wallet = OperatorWallet()
        self.answers: list[Any] = []
        self.journal: list[Any] = []
        self.seamless: list[Any] = []
        self.facts: list[tuple[str, Envelope[Any]]] = []  # (topic, envelope) as the topics would hold them

    def spin(self, stake: int) -> Any:
        _, raw = request_bytes(stake=stake, operator=OPERATOR)
        self.follow(self.spins.decide(self.book, request(raw), NOW))
        return self.answers[-1]

    def follow(self, decision) -> None:
        """A spin Decision passed on: its journal facts and answers kept, its wager commands decided by the saga."""
        self.facts += [("spin.journal", event) for event in decision.events]
        self.facts += [("spin.events", answer) for answer in decision.answers]
        self.journal += [event.data for event in decision.events]
        self.answers += [decode(encode(answer)).data for answer in decision.answers]  # as a client reads them
        for command in decision.commands:
            if isinstance(command.data, WAGER_COMMANDS):
                payload = decode(encode(command))
                self._decided(
                    self.saga.decide(
                        self.rounds, Message(payload, NOW_MS, proof=records.checked_awards(payload.data)), NOW
                    )
                )

    def to_spin(self, event) -> None:
        """A wallet.seamless fact read by the spin."""
        self.follow(self.spins.decide(self.book, fact(decode(encode(event))), NOW))

    def _decided(self, decision) -> None:
        for event in decision.events:
            self.facts.append(("wallet.seamless", event))
            self.seamless.append(event.data)
            self.to_spin(event)
        for round_, owed in self.rounds.due(NOW_MS):
            if self.rounds.rounds[round_.wager_id].open_call == owed:  # still owed once the earlier ones are answered
                outcome = CallOutcome(owed.call_id, owed.attempt, self.wallet.answer(call_of(round_, owed)))
                self._decided(self.saga.decide(self.rounds, outcome, NOW))

    def of_kind(self, kind: type) -> list[Any]:
        return [data for data in self.seamless if isinstance(data, kind)]

    def records(self) -> list[Any]:
        """The facts as the audit reads them (raw records signed as their owners sign them)."""
        return as_records(self.facts)

    def state(self) -> dict[str, Any]:
        """The player's Rising Joker state as the spin's book holds it now."""
        return game_state(self.book, self.ctx.catalog, "p-1", "rising-joker")
