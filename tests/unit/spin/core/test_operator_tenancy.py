"""Operators are tenants: a session token signed with an operator's key binds the spin to that operator. A request
naming another operator is refused UNAUTHENTICATED; one naming none is that operator's; a key of no operator leaves
the request's operator as it is (a single-operator deployment)."""

from dataclasses import replace

from shared.events import broker_time
from shared.events.spin import SeedDrawn, SpinRejected
from tests.support.spin import NOW_MS, make_context, one, request, request_bytes, spin_core, wager


def _bound_to(operator_id):
    return replace(make_context(), token_operator=lambda _token: operator_id)


def _when(ctx, raw):
    return spin_core(ctx).given().when(request(raw), broker_time(NOW_MS))


def test_a_request_naming_another_operator_than_its_tokens_is_refused_and_nothing_is_debited():
    refused = _when(_bound_to("op-a"), request_bytes(operator="op-b")[1]).then().then_commands()
    answer = one(refused.decision.answers, SpinRejected).data
    assert answer.code == "UNAUTHENTICATED" and "op-a" in answer.message


def test_a_request_naming_no_operator_or_its_own_is_the_tokens_operators_spin_and_debit():
    for named in (None, "op-a"):
        accepted = _when(_bound_to("op-a"), request_bytes(operator=named)[1])
        assert one(accepted.decision.events, SeedDrawn).data.operator_id == "op-a"
        assert wager(accepted.decision).data.operator_id == "op-a"


def test_a_key_of_no_operator_keeps_the_operator_the_request_names():
    accepted = _when(_bound_to(None), request_bytes(operator="op-b")[1])
    assert wager(accepted.decision).data.operator_id == "op-b"
