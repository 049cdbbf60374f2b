"""Each answer also on its operator's topic: a SpinSettled / SpinRejected on spin.events goes, in the same transaction
and byte for byte, to spin.answers.<operator> (which operator: docs/security.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import orjson

from services.spin.adapters.outputs import Out
from services.spin.core.book import SpinBook
from services.spin.core.effects import Context
from shared import observability, operators, records
from shared.decision import Decision, Message, Undecodable
from shared.events import Envelope
from shared.events.spin import SpinRejected, SpinRequested, SpinSettled
from shared.input_position import Output

_AT = "@"  # an answer's tag: its kind, "@", then the operator whose topic gets a copy
_ANSWER_KINDS = ("answer", "home-answer")  # services/spin/adapters/outputs.py: decision.answers, then .rerouted


def operator_of(
    book: SpinBook, message: Message, raw: bytes | None, ctx: Context, now_ms: int, reply: Envelope[Any]
) -> str | None:
    """The operator whose players' topic gets this answer to `message` (the input decided), or None."""
    data = reply.data
    if isinstance(data, SpinSettled):
        chosen = data.operator_id
    elif isinstance(data, SpinRejected):
        record = book.records.get(data.request_id) if data.request_id is not None else None
        chosen = record.operator_id if record is not None and record.accepted else _requester(message, raw, ctx, now_ms)
    else:
        return None
    return chosen if operators.known(chosen) else None


def _requester(message: Message, raw: bytes | None, ctx: Context, now_ms: int) -> str | None:
    """A refused request's operator: its token's when the token checks (a forged one binds nobody), else its own."""
    payload = message.payload
    if isinstance(payload, Undecodable):
        return _named(raw)
    if isinstance(payload.data, SpinRequested):
        data = payload.data
        if ctx.token_problem(data.session_token, data.player_id, now_ms) is None:
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


def route(outs: list[Out], start: int, decision: Decision, operator: Callable[[Envelope[Any]], str | None]) -> None:
    """Tag the answers one decision appended to `outs` (from `start`) with their operator, for `copies`."""
    if not operators.OPERATORS:
        return  # a single-operator deployment: spin.events alone
    at = [index for index in range(start, len(outs)) if outs[index].kind in _ANSWER_KINDS]
    replies: Sequence[Envelope[Any]] = (*decision.answers, *decision.rerouted)
    for index, reply in zip(at, replies, strict=True):
        chosen = operator(reply)
        if chosen is not None:
            outs[index] = replace(outs[index], kind=f"{outs[index].kind}{_AT}{chosen}")


def copies(sent: list[Output], physical: Callable[[str], str]) -> list[Output]:
    """The copies for the operators' answer topics (`physical`: logical name -> the deployment's) of the tagged
    answers among a transaction's signed records; the loop signs them as the spin service's."""
    out = []
    for answer in sent:
        _, at, operator_id = answer.tag.partition(_AT)
        if not at or answer.dead_letter:
            continue
        headers = records.headers_for("spin", observability.forward_headers(answer.headers))
        out.append(Output(False, answer.key, answer.value, headers, physical(operators.answers_topic(operator_id))))
    return out
