"""What the spin writes for a Decision (shared/emit.py): its journal first, on the book's own partition; its commands
(a transaction's contributions to a network packed) and answers on their key's partition, each answer also, byte for
byte, on its operator's spin.answers.<O>; a repeat, the answer's record as first written (answers.py), on both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from services.spin.adapters.answers import remembered
from services.spin.core.book import SpinBook, SpinRecord
from services.spin.core.effects import Context
from shared import operators
from shared.decision import Undecodable
from shared.emit import KEY, OWN, Emits, Route
from shared.events import Envelope
from shared.events.jackpot import Claim, Contribute
from shared.events.spin import SeedDrawn, SpinRejected, SpinRequested, SpinSettled
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager
from shared.inbound import Inbound
from shared.input_position import Copy
from shared.topics import JACKPOT_INTERNAL, SPIN_EVENTS, SPIN_JOURNAL, WALLET_INTERNAL

ROUTES = {
    SeedDrawn: Route(SPIN_JOURNAL, OWN, "seed"),
    DebitWager: Route(WALLET_INTERNAL, KEY, "debit"),
    PlaceWager: Route(WALLET_INTERNAL, KEY, "place"),
    SettleWager: Route(WALLET_INTERNAL, KEY, "settle"),
    RefundWager: Route(WALLET_INTERNAL, KEY, "refund"),
    Contribute: Route(JACKPOT_INTERNAL, KEY, "contribute", packed=True),
    Claim: Route(JACKPOT_INTERNAL, KEY, "claim"),
}


def emits(ctx: Context) -> Emits:
    """The spin's declaration, its answers' operators judged with the service's ports (`ctx`: the session keys)."""
    return Emits(
        writer="spin",
        span="spin {}",
        routes=ROUTES,
        events=Route(SPIN_JOURNAL, OWN, "journal"),  # folded on restore from the book's own partition
        answers=Route(SPIN_EVENTS, KEY, "answer", copied=True),
        # A refusal of a record that sat elsewhere (keyless, or keyed by another player) goes where its key belongs.
        rerouted=Route(SPIN_EVENTS, KEY, "home-answer", copied=True),
        journal_first=True,
        copy=_copy(ctx),
        kept=remembered,
        repeats=Route(SPIN_EVENTS, KEY, "answer", copied=True),
    )


def _copy(ctx: Context) -> Callable[[SpinBook, Inbound, Envelope[Any] | None], Copy | None]:
    def copy(book: SpinBook, found: Inbound, reply: Envelope[Any] | None) -> Copy | None:
        if not operators.OPERATORS:
            return None  # a single-operator deployment: spin.events alone
        chosen = operator_of(book, found, ctx, reply) if reply is not None else _repeated(book, found, ctx)
        return Copy(operators.answers_topic(chosen)) if chosen is not None else None

    return copy


def operator_of(book: SpinBook, found: Inbound, ctx: Context, reply: Envelope[Any]) -> str | None:
    """The operator whose players' topic gets this answer to the message `found`, or None."""
    data = reply.data
    if isinstance(data, SpinSettled):
        chosen = data.operator_id
    elif isinstance(data, SpinRejected):
        record = book.records.get(data.request_id) if data.request_id is not None else None
        chosen = _refused_for(record, found, ctx)
    else:
        return None
    return chosen if operators.known(chosen) else None


def _repeated(book: SpinBook, found: Inbound, ctx: Context) -> str | None:
    """The operator whose players' topic gets a request's answer again (`found`: the repeated request), as
    `operator_of` chose for the answer: its settled spin's, else its refusal's."""
    record = book.records[found.message.payload.data.request_id]
    chosen = record.operator_id if record.answer_code == "SETTLED" else _refused_for(record, found, ctx)
    return chosen if operators.known(chosen) else None


def _refused_for(record: SpinRecord | None, found: Inbound, ctx: Context) -> str | None:
    """A refusal's operator: the accepted spin's, else the one the refused request's token binds (`_requester`)."""
    return record.operator_id if record is not None and record.accepted else _requester(found, ctx)


def _requester(found: Inbound, ctx: Context) -> str | None:
    """A refused request's operator: its token's when the token checks (a forged one binds nobody), else its own."""
    payload = found.message.payload
    if isinstance(payload, Undecodable):
        return _named(found.record.value)
    if isinstance(payload.data, SpinRequested):
        data = payload.data
        if ctx.token_problem(data.session_token, data.player_id, found.record.timestamp) is None:
            return ctx.token_operator(data.session_token) or data.operator_id
        return data.operator_id
    return None


def _named(raw: bytes | None) -> str | None:
    """The operator id an undecodable request names, when it is JSON enough to name one."""
    try:
        document = orjson.loads(raw or b"")
    except orjson.JSONDecodeError:
        return None
    data = document.get("data") if isinstance(document, dict) else None
    named = data.get("operator_id") if isinstance(data, dict) else None
    return named if isinstance(named, str) else None
