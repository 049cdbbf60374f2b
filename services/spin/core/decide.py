"""The spin core as the loop runs it (shared/decision.py, `Core`): decide(book, message, now) -> Decision on one
consumed record's Message (a spin request, a wallet fact, a jackpot answer, or one the codec refused), evolve(book,
fact) -> book; its Context is the port it is given once. The book changes only through these two."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from services.spin.core.effects import Context, Draft, SpinDecision
from services.spin.core.progress import (
    JACKPOT_TYPES,
    SEAMLESS_TYPES,
    WALLET_TYPES,
    on_jackpot_answer,
    on_seamless_fact,
    on_wallet_event,
    stray_wager,
)
from services.spin.core.requests import Request, on_request, on_undecodable
from shared.decision import Message, Undecodable
from shared.events import Envelope
from shared.events.spin import SpinRequested

# A book forgets what left the de-duplication window after this many decided messages: it holds the window, not
# every request ever.
PRUNE_EVERY_MESSAGES = 5000


class SpinCore:
    """decide and evolve of the spin service, its ports (`ctx`: games, token check, seed source) bound once."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def new_state(self, partition: int) -> SpinBook:
        return SpinBook()

    def decide(self, book: SpinBook, message: Message, now: datetime) -> SpinDecision:
        """What one message makes the spin service write at broker time `now`; the book folds its facts as it goes,
        has seen the message's broker time, and keeps only the window every PRUNE_EVERY_MESSAGES messages."""
        fold.seen(book, message.broker_ms)
        draft, payload, stray = Draft(book), message.payload, None
        if isinstance(payload, Undecodable):
            on_undecodable(draft, payload, now)
        elif isinstance(payload.data, SpinRequested):  # only spin requests decode as one (shared/records.decode_on)
            on_request(draft, self.ctx, Request(payload, message.key, message.misplaced, message.cause), now)
        elif isinstance(payload.data, WALLET_TYPES):
            stray = stray_wager(book, payload)
            on_wallet_event(draft, self.ctx, payload, now)
        elif isinstance(payload.data, SEAMLESS_TYPES):
            on_seamless_fact(draft, self.ctx, payload, now)
        elif isinstance(payload.data, JACKPOT_TYPES):
            on_jackpot_answer(draft, self.ctx, message, now)
        book.decided += 1
        if book.decided % PRUNE_EVERY_MESSAGES == 0:
            self.forget_expired(book)
        return draft.decision(stray)

    def evolve(self, book: SpinBook, fact: Envelope[Any] | Message) -> SpinBook:
        """One fact folded (services/spin/core/evolve.py): decided here, or consumed as a Message with its proof."""
        return fold.evolve(book, fact)

    def forget_expired(self, book: SpinBook) -> int:
        """Forget the answered requests that left the de-duplication window (a repeat of one is refused by age)."""
        return fold.prune(book, self.ctx.catalog, fold.window_start(book.now_ms))
