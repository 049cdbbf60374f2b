"""A spin request in: repeat, conflict, age, validation, per-player game state, then the wager debit is asked for."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from services.spin.core import fold
from services.spin.core.book import Fingerprint, SpinBook, SpinRecord
from services.spin.core.effects import Context, Effects, Out, Refused, answer, message, record_fact, send
from services.spin.core.validate import refusal
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import DecodeError, Envelope, broker_time, decode, epoch_ms
from shared.events.envelope import derived_id
from shared.events.spin import SpinAccepted, SpinRejected, SpinRequested
from shared.events.wallet import DebitWager
from shared.partitioning import misplaced
from shared.topics import SPIN_REQUESTS, dlq_name


def on_request(
    book: SpinBook,
    ctx: Context,
    raw: bytes | None,
    key: bytes | None,
    now_ms: int,
    partition: int,
    offset: int,
    partitions: int | None = None,
) -> Effects:
    """Handle one record of spin.requests; deterministic for a given book, record and seed source.
    `partitions` is the topic's partition count: a request off its key's partition is answered on the player's own."""
    now = broker_time(now_ms)
    try:
        request = decode(raw, expect_kind="command")
        if not isinstance(request.data, SpinRequested):
            raise DecodeError("type", f"{request.type!r} does not belong on {SPIN_REQUESTS}")
    except DecodeError as error:
        return _undecodable(raw, key, error, now, partition, offset)
    data: SpinRequested = request.data
    if key != data.player_id.encode():
        return _per_record(request, now, "INVALID_REQUEST", "the record key must be the player id")
    wrong = misplaced(key, partition, partitions) if partitions else None
    if wrong is not None:  # not this book's player: the answer goes where the producer's default partitioner puts it
        return _per_record(request, now, "WRONG_PARTITION", wrong, kind="home-answer")
    known = book.records.get(data.request_id)
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    if known is not None:
        return _repeat(known, fingerprint, request, now)
    age_ms = now_ms - epoch_ms(request.time)
    if age_ms > DEDUP_WINDOW_MS:
        return _per_record(
            request, now, "REQUEST_EXPIRED", f"the request is {age_ms} ms old (window {DEDUP_WINDOW_MS} ms)"
        )
    if -age_ms > CLOCK_SKEW_MS:
        return _per_record(request, now, "INVALID_REQUEST", f"the request is dated {-age_ms} ms in the future")
    refused = refusal(book, ctx, data, now_ms)
    effects = Effects()
    if refused is not None:
        code, text = refused
        answer(
            effects,
            book,
            ctx.catalog,
            _rejection(data.request_id, data, now, code, text, derived_id(data.request_id, "answer")),
        )
        return effects
    accepted = SpinAccepted(
        request_id=data.request_id,
        player_id=data.player_id,
        game=data.game,
        stake_minor=data.stake_minor,
        currency=data.currency,
        operator_id=data.operator_id,
        forfeit_bonus_ring=data.forfeit_bonus_ring,
        request_event_id=request.id,
        requested_at=request.time,
        accepted_at=now,
    )
    record_fact(
        effects, book, ctx.catalog, message(accepted, derived_id(data.request_id, "accepted"), now, data.request_id)
    )
    send(effects, debit_command(book.records[data.request_id], now), "debit")
    return effects


def debit_command(record: SpinRecord, now: datetime) -> Envelope[Any]:
    debit = DebitWager(
        transaction_id=record.request_id,
        player_id=record.player_id,
        amount_minor=record.stake_minor,
        currency=record.currency,
        game=record.game,
        operator_id=record.operator_id,
    )
    return message(debit, derived_id(record.request_id, "debit-wager"), now, record.request_id)


def _repeat(known: SpinRecord, fingerprint: Fingerprint, request: Envelope[SpinRequested], now: datetime) -> Effects:
    """Same id: the same answer again (or the debit asked again while in flight); other content: a conflict."""
    if known.fingerprint != fingerprint:
        return _per_record(
            request,
            now,
            "DUPLICATE_CONFLICT",
            f"request id {request.data.request_id} was used for another spin (player, game, stake or currency)",
        )
    effects = Effects()
    if known.answer is not None:
        effects.outputs.append(Out(SpinRejected.TOPIC, known.player_id.encode(), known.answer, "answer"))
    elif known.status == "debiting":
        send(effects, debit_command(known, now), "debit")
    return effects


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


def _per_record(request: Envelope[SpinRequested], now: datetime, code: str, text: str, kind: str = "answer") -> Effects:
    """An answer to this one record (its id derives from the record's event id), never stored as the request's."""
    effects = Effects()
    reply = _rejection(request.data.request_id, request.data, now, code, text, derived_id(request.id, "rejected", code))
    send(effects, reply, kind)
    return effects


def _undecodable(
    raw: bytes | None, key: bytes | None, error: DecodeError, now: datetime, partition: int, offset: int
) -> Effects:
    """Dead-letter the record (the adapter writes why and where); answer INVALID_REQUEST when a player can be named."""
    refused = Refused("UNDECODABLE", error.reason, error.field)
    effects = Effects(outputs=[Out(dlq_name(SPIN_REQUESTS), b"", raw or b"", "dlq", refused=refused)])
    player_id = error.readable_player(key, or_key=True)
    if player_id is None:
        return effects
    request_id = _readable_uuid(error.readable("request_id"))
    reply = _rejection(
        request_id,
        None,
        now,
        "INVALID_REQUEST",
        f"{error.field}: {error.reason}",
        derived_id(SPIN_REQUESTS, partition, offset, "invalid"),
        player_id=player_id,
    )
    send(effects, reply, "answer")
    return effects


def _readable_uuid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value)) if value is not None else None
    except ValueError:
        return None


__all__ = ["on_request", "debit_command", "fold"]
