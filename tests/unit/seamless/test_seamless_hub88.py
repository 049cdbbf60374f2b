"""The Hub88 shape: a port call becomes the Hub88 body and back unchanged, amounts convert exactly, and an answer to
another request or in another shape is no answer."""

from __future__ import annotations

import uuid

import orjson
import pytest

from seamless import hub88, native
from seamless.exceptions import SeamlessError
from seamless.port import Answered, BalanceCall, BetCall, RollbackCall, Status, WinCall

BET_ID, WIN_ID, BACK_ID = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
BET = BetCall(
    request_id=BET_ID,
    transaction_id=BET_ID,
    player_id="p-1",
    currency="EUR",
    amount_minor=150,
    round_id="r-1",
    game="rising-joker",
    session_token="tok",
)
WIN = WinCall(
    request_id=WIN_ID,
    transaction_id=WIN_ID,
    bet_transaction_id=BET_ID,
    player_id="p-1",
    currency="EUR",
    amount_minor=0,
    round_id="r-1",
    game="rising-joker",
)
BACK = RollbackCall(
    request_id=BACK_ID, transaction_id=BACK_ID, bet_transaction_id=BET_ID, player_id="p-1", round_id="r-1", game="g"
)
BALANCE = BalanceCall(request_id=uuid.uuid4(), player_id="p-1", game="rising-joker")


@pytest.mark.parametrize("call", [BET, WIN, BACK, BALANCE])
def test_a_call_survives_the_hub88_body(call):
    raw = orjson.dumps(hub88.request_body(call))
    assert hub88.read_call(call.kind, raw) == call


@pytest.mark.parametrize("call", [BET, WIN, BACK, BALANCE])
def test_a_call_survives_the_native_body(call):
    assert native.read_call(call.kind, orjson.dumps(native.request_body(call))) == call


def test_hub88_amounts_are_the_unit_times_100000():
    body = hub88.request_body(BET)
    assert body["amount"] == 150_000
    assert body["transaction_uuid"] == str(BET_ID)
    assert hub88.to_minor(356_000, "EUR") == 356


def test_an_amount_finer_than_a_minor_unit_is_refused_not_rounded():
    with pytest.raises(SeamlessError):
        hub88.to_minor(356_001, "EUR")


def test_an_answer_reads_into_the_port_status_and_the_balance_in_minor_units():
    raw = orjson.dumps(
        {
            "user": "p-1",
            "status": "RS_ERROR_NOT_ENOUGH_MONEY",
            "request_uuid": str(BET_ID),
            "currency": "EUR",
            "balance": 100_000,
        }
    )
    answer = hub88.read_answer(BET, raw)
    assert answer.status is Status.INSUFFICIENT_FUNDS
    assert answer.balance_minor == 100
    assert answer.operator_status == "RS_ERROR_NOT_ENOUGH_MONEY"


def test_an_unknown_rs_status_reads_as_an_error():
    raw = orjson.dumps({"user": "p-1", "status": "RS_ERROR_SOMETHING_NEW", "request_uuid": str(BET_ID)})
    assert hub88.read_answer(BET, raw).status is Status.ERROR


def test_an_answer_to_another_request_is_refused():
    raw = orjson.dumps({"user": "p-1", "status": "RS_OK", "request_uuid": str(uuid.uuid4())})
    with pytest.raises(ValueError):
        hub88.read_answer(BET, raw)


def test_every_port_status_has_a_hub88_code_that_reads_back_as_itself():
    for status in Status:
        assert hub88.TO_STATUS[hub88.FROM_STATUS[status]] is status


def test_the_wallet_side_answer_body_reads_back_on_the_caller_side():
    answer = Answered(request_id=BET_ID, status=Status.OK, balance_minor=850, currency="EUR", operator_status="RS_OK")
    assert hub88.read_answer(BET, orjson.dumps(hub88.answer_body(BET, answer))) == answer
