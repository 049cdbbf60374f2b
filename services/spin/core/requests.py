"""A spin request in: key and partition, repeat, conflict, age, validation, per-player state, then the wager sent."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.spin.core.book import Fingerprint, SpinRecord
from services.spin.core.effects import Context, Draft, message, wager_of
from services.spin.core.progress import start_wager, wager_command
from services.spin.core.validate import refusal
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Undecodable
from shared.events import Envelope, epoch_ms
from shared.events.envelope import broker_time, derived_id
from shared.events.spin import SpinAccepted, SpinRejected, SpinRequested


@dataclass(frozen=True)
class Request:
    """A decoded spin.requests record: the request, the record's key, and, when the key belongs on another
    partition than the one it came in on, why (shared/partitioning.py; None: it is in its place)."""

    request: Envelope[SpinRequested]
    key: str | None
    misplaced: str | None = None
    # Where the record was read (topic, partition, offset): an answer to this one record takes its id from it, so two
    # records that carry the same bytes (a client's re-send, a copy someone wrote elsewhere) never share an answer id.
    cause: tuple[object, ...] = ()


def on_request(draft: Draft, ctx: Context, incoming: Request, now: datetime) -> None:
    """Decide one spin request at broker time `now`; deterministic for a given book, request and seed source."""
    book, request, now_ms = draft.book, incoming.request, epoch_ms(now)
    data: SpinRequested = request.data
    if incoming.key != data.player_id:
        return _per_record(draft, incoming, now, "INVALID_REQUEST", "the record key must be the player id")
    if incoming.misplaced is not None:  # not this book's player: answered where the key's partition is
        return _per_record(draft, incoming, now, "WRONG_PARTITION", incoming.misplaced, rerouted=True)
    known = book.records.get(data.request_id)
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    if known is not None:
        return _repeat(draft, ctx, known, fingerprint, incoming, now)
    age_ms = now_ms - epoch_ms(request.time)
    if age_ms > DEDUP_WINDOW_MS:
        text = f"the request is {age_ms} ms old (window {DEDUP_WINDOW_MS} ms)"
        return _per_record(draft, incoming, now, "REQUEST_EXPIRED", text)
    if -age_ms > CLOCK_SKEW_MS:
        return _per_record(draft, incoming, now, "INVALID_REQUEST", f"the request is dated {-age_ms} ms in the future")
    bound = ctx.token_operator(data.session_token)  # read once: the check and the accepted spin both use it
    refused = refusal(book, ctx, data, now_ms, bound)
    if refused is not None:
        code, text = refused
        # The player scopes the id: another player's request under the same id (on another partition's book, which
        # knows nothing of this one) is answered under an id of its own.
        answer_id = derived_id(data.request_id, "answer", data.player_id)
        draft.answer(_rejection(data.request_id, data, now, code, text, answer_id))
        return None
    accepted = SpinAccepted(
        **wager_of(data),
        operator_id=bound or data.operator_id,  # the token's operator, if its key is bound to one
        forfeit_bonus_ring=data.forfeit_bonus_ring,
        request_event_id=request.id,
        requested_at=request.time,
        accepted_at=now,
    )
    start_wager(draft, ctx, accepted, now)
    return None


def _repeat(
    draft: Draft,
    ctx: Context,
    known: SpinRecord,
    fingerprint: Fingerprint,
    incoming: Request,
    now: datetime,
) -> None:
    """Same id: the same answer again (or the wager command asked again while in flight); other content: a
    conflict."""
    if known.fingerprint != fingerprint:
        text = (
            f"request id {incoming.request.data.request_id} was used for another spin (player, game, stake or currency)"
        )
        return _per_record(draft, incoming, now, "DUPLICATE_CONFLICT", text)
    if known.answered:
        draft.repeat(known.answer_id)  # the very answer again: the adapter keeps its bytes
    elif known.accepted:  # dated at acceptance: the very command, whose age the wallet judges after its window
        draft.send(wager_command(ctx, known, broker_time(known.time_ms)))
    return None


def _rejection(
    request_id: uuid.UUID | None,
    data: SpinRequested | None,
    now: datetime,
    code: str,
    text: str,
    event_id: uuid.UUID,
    player_id: str | None = None,
) -> Envelope[Any]:
    rejected = SpinRejected(
        request_id=request_id,
        player_id=player_id or (data.player_id if data else "unknown"),
        code=code,
        message=text,
        game=data.game if data else None,
        stake_minor=data.stake_minor if data else None,
        currency=data.currency if data else None,
    )
    return message(rejected, event_id, now, request_id or event_id)


def _per_record(draft: Draft, incoming: Request, now: datetime, code: str, text: str, rerouted: bool = False) -> None:
    """An answer to this one record (its id derives from the record's event id and where it was read), never stored
    as the request's."""
    request = incoming.request
    answer_id = derived_id(request.id, "rejected", code, *incoming.cause)
    reply = _rejection(request.data.request_id, request.data, now, code, text, answer_id)
    (draft.rerouted if rerouted else draft.answers).append(reply)


def on_undecodable(draft: Draft, incoming: Undecodable, now: datetime) -> None:
    """Dead-letter the record; answer INVALID_REQUEST too when a player can be named (by its data or its key)."""
    draft.dead_letters.append(incoming.refusal())
    if incoming.player_id is None:
        return
    error = incoming.error
    reply = _rejection(
        error.readable_uuid("request_id"),
        None,
        now,
        "INVALID_REQUEST",
        f"{error.field}: {error.reason}",
        derived_id(*incoming.cause, "invalid"),
        player_id=incoming.player_id,
    )
    draft.reply(reply)
