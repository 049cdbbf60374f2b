"""A spin Decision as the records the runner produces: a repeat's answer is the very bytes the adapter keeps beside the
book (a rebuilt book's: as they were written), and a refused record goes to its dead letter byte for byte, its reason
in the headers."""

import json

from services.spin.adapters import answers
from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared import dead_letters
from shared.events import decode
from tests.support.spin import (
    NOW_MS,
    answers_of,
    decoded,
    handle_request,
    make_context,
    only,
    read_back,
    request_bytes,
)


def _rebuilt(key: bytes, value: bytes) -> SpinBook:
    """A book and its answers folded from one spin.events record, as a rebuild folds it (rebuild._fold_one)."""
    book = SpinBook()
    answers.read_back(book, answers_of(book), read_back(decode(value)), (key, value))
    return book


def test_a_repeat_of_an_answered_request_re_emits_the_same_bytes():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes(token="forged")
    first = only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer").value
    _, retried = request_bytes(request_id=request_id, token="good")
    assert only(handle_request(book, ctx, retried, b"p-1", NOW_MS, 0, 1).outputs, "answer").value == first


def test_an_undecodable_request_is_dead_lettered_byte_for_byte_before_its_answer():
    book, ctx = SpinBook(), make_context()
    broken = b'{"type": "reelstream.spin.requested.v1", "data": {"player_id": "p-9", "stake_minor": "ten"}}'
    effects = handle_request(book, ctx, broken, b"p-9", NOW_MS, 2, 41)
    assert [out.kind for out in effects.outputs] == ["dlq", "answer"]
    dead = only(effects.outputs, "dlq")
    assert dead.value == broken
    headers = dict(dead.headers)
    assert headers[dead_letters.CODE] == b"UNDECODABLE"
    assert headers[dead_letters.FIELD] == b"id"  # the first field that is wrong
    assert decoded(only(effects.outputs, "answer")).player_id == "p-9"
    garbage = handle_request(book, ctx, b"\x00not json", None, NOW_MS, 2, 42)
    assert [out.kind for out in garbage.outputs] == ["dlq"]


def test_a_request_whose_player_cannot_be_read_or_written_is_dead_lettered_and_answered_only_to_its_key():
    book, ctx = SpinBook(), make_context()
    keyed = handle_request(book, ctx, b"[1, 2, 3]", b"p-keyed", NOW_MS, 2, 43)
    assert [out.kind for out in keyed.outputs] == ["dlq", "answer"]
    broken = '{"type": "reelstream.spin.requested.v1", "data": {"player_id": "été", "stake_minor": "ten"}}'.encode()
    assert [out.kind for out in handle_request(book, ctx, broken, "été".encode(), NOW_MS, 2, 44).outputs] == ["dlq"]


def test_a_book_rebuilt_from_an_answer_as_written_re_emits_those_bytes_for_a_repeat():
    live, ctx = SpinBook(), make_context()
    _, raw = request_bytes(token="forged")
    first = only(handle_request(live, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer")
    book = _rebuilt(first.key, first.value)
    fold.finish_rebuild(book, ctx.catalog)
    assert only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer").value == first.value


def test_a_rebuilt_answer_is_repeated_as_it_was_written_not_as_this_build_would_encode_it():
    # An answer written by another build (here: other spacing, as an older codec might write it) is repeated byte for
    # byte: the fold keeps the bytes a restore read back, never a re-encoding of them.
    live, ctx = SpinBook(), make_context()
    _, raw = request_bytes(token="forged")
    first = only(handle_request(live, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer")
    older = json.dumps(json.loads(first.value), indent=1).encode()
    assert older != first.value
    book = _rebuilt(first.key, older)
    assert only(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer").value == older
