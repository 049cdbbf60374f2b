"""The Hub88 operator-wallet shape: its paths, request and response bodies, `RS_*` statuses and integer amounts
(the currency unit × 100000), translated to and from the port's calls and answers."""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Annotated, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, Strict

from seamless.exceptions import SeamlessError
from seamless.port import AnyCall, Answered, BalanceCall, BetCall, RollbackCall, Status, WinCall
from shared.money import MINOR_DIGITS

NAME = "hub88"
SIGNATURE_HEADER = "X-Hub88-Signature"
# Not in Hub88's own shape: names the key that signed, so a wallet need not try each key of its ring.
KEY_ID_HEADER = "X-Hub88-Key-Id"
PATHS = {
    "balance": "/user/balance",
    "bet": "/transaction/bet",
    "win": "/transaction/win",
    "rollback": "/transaction/rollback",
}
UNIT_DIGITS = 5  # Hub88 amounts: the currency unit × 100000, as an integer


class Hub88Status(StrEnum):
    RS_OK = "RS_OK"
    RS_ERROR_UNKNOWN = "RS_ERROR_UNKNOWN"
    RS_ERROR_INVALID_PARTNER = "RS_ERROR_INVALID_PARTNER"
    RS_ERROR_INVALID_TOKEN = "RS_ERROR_INVALID_TOKEN"
    RS_ERROR_INVALID_GAME = "RS_ERROR_INVALID_GAME"
    RS_ERROR_WRONG_CURRENCY = "RS_ERROR_WRONG_CURRENCY"
    RS_ERROR_NOT_ENOUGH_MONEY = "RS_ERROR_NOT_ENOUGH_MONEY"
    RS_ERROR_USER_DISABLED = "RS_ERROR_USER_DISABLED"
    RS_ERROR_INVALID_SIGNATURE = "RS_ERROR_INVALID_SIGNATURE"
    RS_ERROR_TOKEN_EXPIRED = "RS_ERROR_TOKEN_EXPIRED"
    RS_ERROR_WRONG_SYNTAX = "RS_ERROR_WRONG_SYNTAX"
    RS_ERROR_WRONG_TYPES = "RS_ERROR_WRONG_TYPES"
    RS_ERROR_DUPLICATE_TRANSACTION = "RS_ERROR_DUPLICATE_TRANSACTION"
    RS_ERROR_TRANSACTION_DOES_NOT_EXIST = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    RS_ERROR_TRANSACTION_ROLLED_BACK = "RS_ERROR_TRANSACTION_ROLLED_BACK"
    RS_ERROR_LIMIT_REACHED = "RS_ERROR_LIMIT_REACHED"


# Each Hub88 status as the port reads it; an unlisted status (a code added later) reads as ERROR.
TO_STATUS: dict[Hub88Status, Status] = {
    Hub88Status.RS_OK: Status.OK,
    Hub88Status.RS_ERROR_UNKNOWN: Status.ERROR,
    Hub88Status.RS_ERROR_INVALID_PARTNER: Status.ERROR,
    Hub88Status.RS_ERROR_INVALID_TOKEN: Status.SESSION_GONE,
    Hub88Status.RS_ERROR_INVALID_GAME: Status.UNKNOWN_GAME,
    Hub88Status.RS_ERROR_WRONG_CURRENCY: Status.CURRENCY_MISMATCH,
    Hub88Status.RS_ERROR_NOT_ENOUGH_MONEY: Status.INSUFFICIENT_FUNDS,
    Hub88Status.RS_ERROR_USER_DISABLED: Status.PLAYER_DISABLED,
    Hub88Status.RS_ERROR_INVALID_SIGNATURE: Status.SIGNATURE_REFUSED,
    Hub88Status.RS_ERROR_TOKEN_EXPIRED: Status.SESSION_GONE,
    Hub88Status.RS_ERROR_WRONG_SYNTAX: Status.MALFORMED,
    Hub88Status.RS_ERROR_WRONG_TYPES: Status.MALFORMED,
    Hub88Status.RS_ERROR_DUPLICATE_TRANSACTION: Status.DUPLICATE_CONFLICT,
    Hub88Status.RS_ERROR_TRANSACTION_DOES_NOT_EXIST: Status.UNKNOWN_TRANSACTION,
    Hub88Status.RS_ERROR_TRANSACTION_ROLLED_BACK: Status.ALREADY_ROLLED_BACK,
    Hub88Status.RS_ERROR_LIMIT_REACHED: Status.LIMIT_REACHED,
}
# The status a wallet speaking Hub88 sends for each port status (the reference wallet's side).
FROM_STATUS: dict[Status, Hub88Status] = {
    Status.OK: Hub88Status.RS_OK,
    Status.INSUFFICIENT_FUNDS: Hub88Status.RS_ERROR_NOT_ENOUGH_MONEY,
    Status.LIMIT_REACHED: Hub88Status.RS_ERROR_LIMIT_REACHED,
    Status.PLAYER_DISABLED: Hub88Status.RS_ERROR_USER_DISABLED,
    Status.SESSION_GONE: Hub88Status.RS_ERROR_INVALID_TOKEN,
    Status.CURRENCY_MISMATCH: Hub88Status.RS_ERROR_WRONG_CURRENCY,
    Status.UNKNOWN_GAME: Hub88Status.RS_ERROR_INVALID_GAME,
    Status.DUPLICATE_CONFLICT: Hub88Status.RS_ERROR_DUPLICATE_TRANSACTION,
    Status.UNKNOWN_TRANSACTION: Hub88Status.RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
    Status.ALREADY_ROLLED_BACK: Hub88Status.RS_ERROR_TRANSACTION_ROLLED_BACK,
    Status.SIGNATURE_REFUSED: Hub88Status.RS_ERROR_INVALID_SIGNATURE,
    Status.MALFORMED: Hub88Status.RS_ERROR_WRONG_SYNTAX,
    Status.ERROR: Hub88Status.RS_ERROR_UNKNOWN,
}

Units = Annotated[int, Strict(), Field(ge=0, le=2**63 - 1)]


class _Wire(BaseModel):
    # Hub88 adds fields over time (meta, bonus ids): a reader keeps what it knows and ignores the rest.
    model_config = ConfigDict(frozen=True, extra="ignore")


class BalanceRequest(_Wire):
    user: str
    request_uuid: uuid.UUID
    token: str | None = None
    game_code: str | None = None


class BetRequest(_Wire):
    user: str
    request_uuid: uuid.UUID
    transaction_uuid: uuid.UUID
    supplier_transaction_id: str | None = None
    token: str | None = None
    round: str
    round_closed: bool = False
    game_code: str
    currency: str
    amount: Units
    is_free: bool = False


class WinRequest(BetRequest):
    reference_transaction_uuid: uuid.UUID
    round_closed: bool = True


class RollbackRequest(_Wire):
    user: str
    request_uuid: uuid.UUID
    transaction_uuid: uuid.UUID
    reference_transaction_uuid: uuid.UUID
    supplier_transaction_id: str | None = None
    token: str | None = None
    round: str
    round_closed: bool = True
    game_code: str


class Response(_Wire):
    user: str
    status: str
    request_uuid: uuid.UUID
    currency: str | None = None
    balance: Annotated[int, Strict()] | None = None


def to_units(amount_minor: int, currency: str) -> int:
    digits = MINOR_DIGITS.get(currency)
    if digits is None or digits > UNIT_DIGITS:
        raise SeamlessError(f"no Hub88 amount for {currency}")
    return amount_minor * 10 ** (UNIT_DIGITS - digits)


def to_minor(units: int, currency: str) -> int:
    """Minor units of a Hub88 amount; an amount finer than the currency's minor unit is refused, never rounded."""
    digits = MINOR_DIGITS.get(currency)
    if digits is None or digits > UNIT_DIGITS:
        raise SeamlessError(f"no Hub88 amount for {currency}")
    minor, rest = divmod(units, 10 ** (UNIT_DIGITS - digits))
    if rest:
        raise SeamlessError(f"{units} is not a whole number of minor units of {currency}")
    return minor


def request_body(call: AnyCall) -> dict[str, Any]:
    """The Hub88 body of a port call."""
    common: dict[str, Any] = {"user": call.player_id, "request_uuid": str(call.request_id)}
    if call.session_token is not None:
        common["token"] = call.session_token
    if isinstance(call, BalanceCall):
        return common | ({"game_code": call.game} if call.game else {})
    common |= {
        "transaction_uuid": str(call.transaction_id),
        "supplier_transaction_id": str(call.transaction_id),
        "round": call.round_id,
        "game_code": call.game,
    }
    if isinstance(call, RollbackCall):
        return common | {"reference_transaction_uuid": str(call.bet_transaction_id), "round_closed": True}
    money = {"currency": call.currency, "amount": to_units(call.amount_minor, call.currency), "is_free": False}
    if isinstance(call, WinCall):
        return common | money | {"reference_transaction_uuid": str(call.bet_transaction_id), "round_closed": True}
    return common | money | {"round_closed": False}


def read_call(kind: str, raw: bytes) -> AnyCall:
    """The port call a Hub88 request carries (the wallet's side); ValueError when it is none."""
    data = orjson.loads(raw)
    common = {"player_id": data.get("user"), "session_token": data.get("token")} if isinstance(data, dict) else {}
    if kind == "balance":
        request = BalanceRequest.model_validate(data)
        return BalanceCall(request_id=request.request_uuid, game=request.game_code, **common)
    if kind == "rollback":
        back = RollbackRequest.model_validate(data)
        return RollbackCall(
            request_id=back.request_uuid,
            transaction_id=back.transaction_uuid,
            bet_transaction_id=back.reference_transaction_uuid,
            round_id=back.round,
            game=back.game_code,
            **common,
        )
    model = WinRequest if kind == "win" else BetRequest
    request = model.model_validate(data)
    money = {
        "request_id": request.request_uuid,
        "transaction_id": request.transaction_uuid,
        "currency": request.currency,
        "amount_minor": to_minor(request.amount, request.currency),
        "round_id": request.round,
        "game": request.game_code,
    }
    if isinstance(request, WinRequest):
        return WinCall(bet_transaction_id=request.reference_transaction_uuid, **money, **common)
    return BetCall(**money, **common)


def read_answer(call: AnyCall, raw: bytes) -> Answered:
    """The port's answer in a Hub88 response to `call`; ValueError when the body answers something else."""
    response = Response.model_validate_json(raw)
    if response.request_uuid != call.request_id:
        raise ValueError(f"the answer is to request {response.request_uuid}, not {call.request_id}")
    try:
        status = TO_STATUS[Hub88Status(response.status)]
    except ValueError:
        status = Status.ERROR
    balance = None
    if response.balance is not None and response.currency is not None:
        balance = to_minor(response.balance, response.currency)
    return Answered(
        request_id=call.request_id,
        status=status,
        balance_minor=balance,
        currency=response.currency,
        operator_status=response.status,
    )


def answer_body(call: AnyCall, answer: Answered) -> dict[str, Any]:
    """The Hub88 response the wallet sends for `answer`."""
    body: dict[str, Any] = {
        "user": call.player_id,
        "status": FROM_STATUS[answer.status].value,
        "request_uuid": str(call.request_id),
    }
    if answer.currency is not None and answer.balance_minor is not None:
        body |= {"currency": answer.currency, "balance": to_units(answer.balance_minor, answer.currency)}
    return body


def refusal_body(data: dict[str, Any], status: Status) -> dict[str, Any]:
    """The answer to a request the wallet could not read or verify, with whatever ids it carried."""
    return {
        "user": str(data.get("user", "")),
        "status": FROM_STATUS[status].value,
        "request_uuid": str(data.get("request_uuid", "")),
    }
