"""Reelstream's own operator-wallet protocol: the port's calls and answers as JSON, one path each, signed like Hub88's
(RSA-SHA256 of the body) with the key id named; docs/contract/openapi.json is generated from these models."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import orjson
from pydantic import BaseModel, ConfigDict, Strict

from seamless.port import AnyCall, Answered, BalanceCall, BetCall, RollbackCall, Status, WinCall
from shared.events.base import CurrencyCode

NAME = "reelstream"
SIGNATURE_HEADER = "Reelstream-Signature"
KEY_ID_HEADER = "Reelstream-Key-Id"
PATHS = {"balance": "/v1/balance", "bet": "/v1/bets", "win": "/v1/wins", "rollback": "/v1/rollbacks"}
MODELS: dict[str, type[BaseModel]] = {"balance": BalanceCall, "bet": BetCall, "win": WinCall, "rollback": RollbackCall}


class WalletAnswer(BaseModel):
    """The wallet's answer: the request's id echoed, a status, and the balance after the call (always on OK)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    request_id: uuid.UUID
    status: Status
    balance_minor: Annotated[int, Strict()] | None = None
    currency: CurrencyCode | None = None


def request_body(call: AnyCall) -> dict[str, Any]:
    return call.model_dump(mode="json", exclude_none=True)


def read_call(kind: str, raw: bytes) -> AnyCall:
    return MODELS[kind].model_validate(orjson.loads(raw))


def read_answer(call: AnyCall, raw: bytes) -> Answered:
    answer = WalletAnswer.model_validate_json(raw)
    if answer.request_id != call.request_id:
        raise ValueError(f"the answer is to request {answer.request_id}, not {call.request_id}")
    return Answered(
        request_id=answer.request_id,
        status=answer.status,
        balance_minor=answer.balance_minor,
        currency=answer.currency,
        operator_status=answer.status.value,
    )


def answer_body(call: AnyCall, answer: Answered) -> dict[str, Any]:
    return WalletAnswer(
        request_id=call.request_id, status=answer.status, balance_minor=answer.balance_minor, currency=answer.currency
    ).model_dump(mode="json", exclude_none=True)


def refusal_body(data: dict[str, Any], status: Status) -> dict[str, Any]:
    return {"request_id": str(data.get("request_id", "")), "status": status.value}
