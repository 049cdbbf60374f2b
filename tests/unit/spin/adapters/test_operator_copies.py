"""Each answer also on its operator's topic, through the runner's own path (its record handling, outputs and the
loop's `derived` hook): the token's operator gets it, a forged token binds nobody, an id the deployment does not
list gets no copy, and without an operator nothing but spin.events changes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared import operators
from services.spin.adapters.runner import SPECS, SnapshotPolicy, SpinRunner
from services.spin.core.book import SpinBook
from shared import inbound, records
from shared.config import load_settings
from shared.events import decode, encode
from shared.operators import answers_topic
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS, WALLET_EVENTS
from tests.support.spin import (
    NO_CLAIM,
    GOOD_TOKEN,
    NOW_MS,
    Record,
    Seeds,
    debit_refused_for,
    make_context,
    placed_for,
    request_bytes,
)

A, B = "demo-a", "demo-b"


def _runner(bound: str | None) -> SpinRunner:
    """A spin runner whose tokens' keys belong to `bound` (any token names its key; only GOOD_TOKEN checks)."""
    ctx = replace(make_context(Seeds(NO_CLAIM)), token_operator=lambda _token: bound)
    return SpinRunner(load_settings(), ctx, SnapshotPolicy(enabled=False))


def _through(runner: SpinRunner, book: SpinBook, topic: str, value: bytes, key: bytes = b"p-1") -> list:
    """One consumed record through the runner: its Outputs, then the copies the loop adds to its transaction."""
    headers = tuple(records.headers_for("wallet")) if topic == WALLET_EVENTS else ()
    record = Record(topic, 0, 0, key, value, NOW_MS, headers)
    sent = runner.decide(0, book, [inbound.read(SPECS[topic], record, 0, book)])  # as the loop reads it
    return sent + runner.derived(0, sent)


def _answers(sent: list) -> dict[str, list]:
    """Each answer topic's records (spin.events and the operators')."""
    found: dict[str, list] = {}
    for out in sent:
        if out.topic.endswith(SPIN_EVENTS) or ".answers." in out.topic:
            found.setdefault(out.topic.removeprefix(load_settings().topic_prefix), []).append(out)
    return found


def _wager(sent: list):
    (place,) = [out for out in sent if out.tag == "place"]
    return place


def _request(runner, book, **fields) -> list:
    _, raw = request_bytes(**fields)
    return _through(runner, book, SPIN_REQUESTS, raw)


def test_a_settled_spin_with_bs_token_is_answered_on_bs_topic_only_with_the_same_bytes_as_the_spin_service():
    runner, book = _runner(B), SpinBook()
    asked = _request(runner, book)
    assert _answers(asked) == {}
    debited, settled = placed_for(_wager(asked), 1234)
    _through(runner, book, WALLET_EVENTS, encode(debited))
    answers = _answers(_through(runner, book, WALLET_EVENTS, encode(settled)))
    assert set(answers) == {SPIN_EVENTS, answers_topic(B)}
    (kept,), (copy,) = answers[SPIN_EVENTS], answers[answers_topic(B)]
    assert copy.value == kept.value and copy.key == kept.key == b"p-1"
    assert decode(copy.value).data.operator_id == B
    assert records.writer_of(copy.headers) == "spin" and not copy.dead_letter


def test_a_refusal_after_acceptance_goes_to_the_accepted_spins_operator():
    runner, book = _runner(A), SpinBook()
    asked = _request(runner, book)
    refused = debit_refused_for(_wager(asked))
    answers = _answers(_through(runner, book, WALLET_EVENTS, encode(refused)))
    assert set(answers) == {SPIN_EVENTS, answers_topic(A)}
    assert decode(answers[answers_topic(A)][0].value).data.code == "INSUFFICIENT_FUNDS"


def test_a_request_naming_a_with_bs_token_is_refused_on_bs_topic_not_as():
    answers = _answers(_request(_runner(B), SpinBook(), operator=A))
    assert set(answers) == {SPIN_EVENTS, answers_topic(B)}
    assert decode(answers[answers_topic(B)][0].value).data.code == "UNAUTHENTICATED"


def test_a_refusal_with_a_valid_token_goes_to_its_operator():
    answers = _answers(_request(_runner(B), SpinBook(), stake=7))
    assert set(answers) == {SPIN_EVENTS, answers_topic(B)}
    assert decode(answers[answers_topic(B)][0].value).data.code == "INVALID_STAKE"


def test_a_forged_token_binds_nobody_its_refusal_goes_to_the_operator_the_request_names():
    answers = _answers(_request(_runner(B), SpinBook(), token="forged", operator=A))
    assert set(answers) == {SPIN_EVENTS, answers_topic(A)}
    assert decode(answers[answers_topic(A)][0].value).data.code == "UNAUTHENTICATED"
    assert sorted(_answers(_request(_runner(B), SpinBook(), token="forged"))) == [SPIN_EVENTS]


def test_an_undecodable_request_goes_to_the_operator_it_names_when_it_names_a_listed_one():
    raw = b'{"specversion": "1.0", "type": "reelstream.spin.requested.v1", "data": {"operator_id": "demo-a"}}'
    answers = _answers(_through(_runner(None), SpinBook(), SPIN_REQUESTS, raw))
    assert set(answers) == {SPIN_EVENTS, answers_topic(A)}
    assert answers[answers_topic(A)][0].value == answers[SPIN_EVENTS][0].value
    for junk in (b"not json", b"[1]", b'{"data": {"operator_id": 7}}', b'{"data": {"operator_id": "op-z"}}'):
        assert sorted(_answers(_through(_runner(None), SpinBook(), SPIN_REQUESTS, junk))) == [SPIN_EVENTS]


@pytest.mark.parametrize("named", [None, "op-z"])
def test_a_spin_of_no_listed_operator_is_answered_on_spin_events_alone(named):
    runner, book = _runner(None), SpinBook()
    asked = _request(runner, book, operator=named)
    debited, settled = placed_for(_wager(asked))
    _through(runner, book, WALLET_EVENTS, encode(debited))
    answers = _answers(_through(runner, book, WALLET_EVENTS, encode(settled)))
    assert sorted(answers) == [SPIN_EVENTS]
    assert decode(answers[SPIN_EVENTS][0].value).data.operator_id == named


def test_a_deployment_without_operators_tags_nothing(monkeypatch):
    monkeypatch.setattr(operators, "OPERATORS", ())
    assert _answers(_request(_runner(B), SpinBook(), stake=7)).keys() == {SPIN_EVENTS}


def test_a_repeat_of_a_settled_request_is_copied_again_byte_for_byte():
    runner, book = _runner(B), SpinBook()
    request_id, raw = request_bytes(token=GOOD_TOKEN)
    asked = _through(runner, book, SPIN_REQUESTS, raw)
    debited, settled = placed_for(_wager(asked))
    _through(runner, book, WALLET_EVENTS, encode(debited))
    first = _answers(_through(runner, book, WALLET_EVENTS, encode(settled)))[answers_topic(B)][0]
    again = _answers(_through(runner, book, SPIN_REQUESTS, raw))
    assert [out.value for out in again[answers_topic(B)]] == [first.value]
