"""decide(book, message, now, ctx=...) -> Decision: one decoded spin.requests record, wallet fact or jackpot answer
decided (anything else is none of the spin's business); state changes only through `evolve`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from services.spin.core.book import SpinBook
from services.spin.core.effects import Context, Draft
from services.spin.core.progress import JACKPOT_TYPES, WALLET_TYPES, on_jackpot_answer, on_wallet_event
from services.spin.core.requests import Request, on_request, on_undecodable
from shared.decision import Decision, Undecodable
from shared.events import Envelope
from shared.events.wallet import JackpotWonProof


def decide(
    book: SpinBook,
    message: Request | Undecodable | Envelope[Any],
    now: datetime,
    *,
    ctx: Context,
    proof: JackpotWonProof | None = None,
) -> Decision:
    """What one message makes the spin service write, at broker time `now`; the book folds its facts as it goes.
    `proof`: with a JackpotWon, the jackpot's signed record of it (the adapter reads it from the forwarded record)."""
    draft = Draft(book)
    if isinstance(message, Request):
        on_request(draft, ctx, message, now)
    elif isinstance(message, Undecodable):
        on_undecodable(draft, message, now)
    elif isinstance(message.data, WALLET_TYPES):
        on_wallet_event(draft, ctx, message, now)
    elif isinstance(message.data, JACKPOT_TYPES):
        on_jackpot_answer(draft, ctx, message, now, proof)
    return draft.decision()
