"""SeamlessCore.decide(book, message, now) -> Decision: a wager command becomes a call decided, an attempt's outcome
what it settles, time passing the rollback of bets unanswered in time. Each decided event is folded at once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from shared import operators
from shared.decision import Decision, Message, Undecodable
from shared.events.envelope import Envelope, epoch_ms
from shared.events.seamless import RecordCallOutcome
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager
from shared.operators import SeamlessWallet

from services.seamless_saga.core import answers, wagers
from services.seamless_saga.core.evolve import evolve
from services.seamless_saga.core.handed import taken
from services.seamless_saga.core.messages import CallOutcome, Tick
from services.seamless_saga.core.route import WalletOf, seamless_wager
from services.seamless_saga.core.state import SeamlessBook


class SeamlessCore:
    """The seamless saga's core (shared/decision.Core). Its ports, given once: `wallets` (an operator's seamless wallet
    settings, None for a ledger operator) and `draw` (a number in [0, 1) for the back-off's jitter); a settlement's
    JackpotWons come checked with the message, as the ledger's do."""

    def __init__(self, draw: Callable[[], float], wallets: WalletOf = operators.seamless_wallet_of) -> None:
        self.wallets, self.draw = wallets, draw

    def new_state(self, partition: int) -> SeamlessBook:
        return SeamlessBook(partition)

    def evolve(self, book: SeamlessBook, event: Envelope[Any]) -> SeamlessBook:
        return evolve(book, event)

    def decide(self, book: SeamlessBook, message: Message | CallOutcome | Tick, now: datetime) -> Decision:
        decision = self._decided(book, message, now)
        for event in decision.events:
            evolve(book, event)
        return decision

    def _decided(self, book: SeamlessBook, message: Message | CallOutcome | Tick, now: datetime) -> Decision:
        if isinstance(message, Tick):
            return self._expired(book, now)
        if isinstance(message, CallOutcome):
            return self._answered(book, message, now)
        payload = message.payload
        if isinstance(payload, Undecodable):
            return Decision(dead_letters=(payload.refusal(),))
        data = payload.data
        if isinstance(data, RecordCallOutcome):
            return self._answered(book, taken(data), now)
        if not seamless_wager(data, self.wallets):
            return Decision()  # a ledger operator's wager (or none at all): the ledger wallet's business
        if isinstance(data, (DebitWager, PlaceWager)):
            return wagers.bet(book, payload, self.wallets(data.operator_id), now)
        if isinstance(data, SettleWager):
            round_ = book.rounds.get(str(data.wager_id))
            wallet = self.wallets(round_.operator_id) if round_ else None
            return wagers.win(book, payload, wallet, message.proof, now)
        assert isinstance(data, RefundWager), f"not a wager command: {type(data).__name__}"
        return wagers.refund(book, payload, now)

    def _answered(self, book: SeamlessBook, message: CallOutcome, now: datetime) -> Decision:
        wager_id = book.round_of_call.get(message.call_id)
        if wager_id is None:  # handed again after its round closed and left the book: nothing left to settle
            return Decision(repeats=1)
        round_ = book.rounds[wager_id]
        return answers.answered(round_, message, self._wallet(round_.operator_id), self.draw, now)

    def _expired(self, book: SeamlessBook, now: datetime) -> Decision:
        now_ms = epoch_ms(now)
        late = [round_ for round_ in book.rounds.values() if answers.expired(round_, now_ms)]
        return Decision(events=tuple(event for round_ in late for event in answers.timed_out(round_, now)))

    def _wallet(self, operator_id: str) -> SeamlessWallet:
        wallet = self.wallets(operator_id)
        assert wallet is not None, f"operator {operator_id} has seamless rounds but no seamless wallet"
        return wallet
