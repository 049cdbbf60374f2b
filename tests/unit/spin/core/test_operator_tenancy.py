"""Operators are tenants: a session token signed with an operator's key binds the spin to that operator. A request
naming another operator is refused UNAUTHENTICATED; one naming none is that operator's; a key of no operator leaves
the request's operator as it is (a single-operator deployment)."""

from dataclasses import replace

from services.spin.core.book import SpinBook
from tests.support.spin import NOW_MS, decoded, handle_request, make_context, only, request_bytes, wager_out


def _bound_to(operator_id):
    return replace(make_context(), token_operator=lambda _token: operator_id)


def _handle(ctx, raw):
    return handle_request(SpinBook(), ctx, raw, b"p-1", NOW_MS, 0, 0)


def test_a_request_naming_another_operator_than_its_tokens_is_refused_and_nothing_is_debited():
    effects = _handle(_bound_to("op-a"), request_bytes(operator="op-b")[1])
    answer = decoded(only(effects.outputs, "answer"))
    assert answer.code == "UNAUTHENTICATED" and "op-a" in answer.message
    assert effects.journal == [] and [out for out in effects.outputs if out.kind == "debit"] == []


def test_a_request_naming_no_operator_or_its_own_is_the_tokens_operators_spin_and_debit():
    for named in (None, "op-a"):
        effects = _handle(_bound_to("op-a"), request_bytes(operator=named)[1])
        assert decoded(only(effects.journal, "seed")).operator_id == "op-a"
        assert decoded(wager_out(effects.outputs)).operator_id == "op-a"


def test_a_key_of_no_operator_keeps_the_operator_the_request_names():
    effects = _handle(_bound_to(None), request_bytes(operator="op-b")[1])
    assert decoded(wager_out(effects.outputs)).operator_id == "op-b"
