"""A spin request: the contract's refusals, the debit asked for once, repeats answered with the very same bytes."""

from services.spin.core.book import SpinBook
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS

from shared import dead_letters
from tests.support.spin import handle_request, NOW_MS, decoded, make_context, only, request_bytes, wager_out


def handle(book, ctx, raw, player="p-1", now_ms=NOW_MS, offset=0):
    return handle_request(book, ctx, raw, player.encode(), now_ms, 0, offset)


def rejection_code(effects):
    return decoded(only(effects.outputs, "answer")).code


def test_a_valid_request_journals_its_acceptance_and_asks_the_wallet_for_the_wager():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes(stake=20)
    effects = handle(book, ctx, raw)
    accepted = decoded(only(effects.journal, "seed"))  # the acceptance travels with the seed
    debit = decoded(wager_out(effects.outputs))
    assert accepted.request_id == request_id
    assert accepted.stake_minor == 20
    assert "session_token" not in only(effects.journal, "seed").value.decode()
    assert (debit.transaction_id, debit.amount_minor, debit.currency) == (request_id, 20, "EUR")


def test_each_business_refusal_has_its_contract_code():
    cases = {
        "UNAUTHENTICATED": dict(token="forged"),
        "UNKNOWN_GAME": dict(game="pachinko"),
        "CURRENCY_MISMATCH": dict(currency="DKK"),
        "INVALID_STAKE": dict(stake=15),
    }
    for code, fields in cases.items():
        book, ctx = SpinBook(), make_context()
        effects = handle(book, ctx, request_bytes(**fields)[1])
        assert rejection_code(effects) == code
        assert effects.journal == []


def test_a_request_older_than_the_window_or_dated_in_the_future_is_refused():
    book, ctx = SpinBook(), make_context()
    assert (
        rejection_code(handle(book, ctx, request_bytes(time_ms=NOW_MS - DEDUP_WINDOW_MS - 1)[1])) == "REQUEST_EXPIRED"
    )
    assert rejection_code(handle(book, ctx, request_bytes(time_ms=NOW_MS + CLOCK_SKEW_MS + 1)[1])) == "INVALID_REQUEST"
    assert book.records == {}


def test_a_repeat_in_flight_asks_for_the_same_debit_again_and_never_a_second_wager():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes()
    first = handle(book, ctx, raw)
    again = handle(book, ctx, raw)
    assert again.journal == []
    assert wager_out(again.outputs).value == wager_out(first.outputs).value


def test_a_repeat_in_flight_later_asks_for_the_wager_with_its_first_time_so_the_wallet_can_tell_its_age():
    # Dated at the repeat's time, a wager the wallet has forgotten (after its de-duplication window) would be a new
    # command and settle twice; dated at acceptance, it is the very same command, refused as expired that late.
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes()
    first = handle(book, ctx, raw)
    again = handle(book, ctx, raw, now_ms=NOW_MS + 600_000, offset=1)
    assert wager_out(again.outputs).value == wager_out(first.outputs).value


def test_two_records_with_the_same_bytes_get_answers_of_their_own_and_a_redelivery_the_same_one():
    # A per-record answer (here: a key that is not the player) names the record it answers: copies of one request
    # written twice, at other times, never share an answer id with other bytes (the audit's duplicate-event-id).
    book, ctx = SpinBook(), make_context()
    _, raw = request_bytes()
    first = only(handle(book, ctx, raw, player="someone-else", offset=0).outputs, "answer")
    second = only(handle(book, ctx, raw, player="someone-else", now_ms=NOW_MS + 5, offset=1).outputs, "answer")
    again = only(handle(book, ctx, raw, player="someone-else", offset=0).outputs, "answer")
    assert decoded(first).code == decoded(second).code == "INVALID_REQUEST"
    assert _event_id(first) != _event_id(second)
    assert again.value == first.value


def test_two_players_refused_under_one_request_id_get_answers_of_their_own():
    # Each partition's book knows only its players: a refusal under a request id another player also used (request
    # ids are public on spin.events) must not share that player's answer id.
    request_id, mine = request_bytes(token="forged")
    _, theirs = request_bytes(request_id=request_id, player="p-2", token="forged")
    first = only(handle(SpinBook(), make_context(), mine).outputs, "answer")
    second = only(handle(SpinBook(), make_context(), theirs, player="p-2").outputs, "answer")
    assert decoded(first).code == decoded(second).code == "UNAUTHENTICATED"
    assert _event_id(first) != _event_id(second)


def _event_id(out) -> str:
    import json

    return json.loads(out.value)["id"]


def test_a_repeat_of_an_answered_request_re_emits_the_same_bytes():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes(token="forged")
    first = only(handle(book, ctx, raw).outputs, "answer").value
    _, retried = request_bytes(request_id=request_id, token="good")
    assert only(handle(book, ctx, retried).outputs, "answer").value == first


def test_the_same_id_with_another_stake_is_a_duplicate_conflict_that_changes_nothing():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes(stake=10)
    handle(book, ctx, raw)
    _, conflicting = request_bytes(request_id=request_id, stake=20)
    effects = handle(book, ctx, conflicting)
    assert rejection_code(effects) == "DUPLICATE_CONFLICT"
    assert book.records[request_id].stake_minor == 10
    assert book.records[request_id].answer is None


def test_an_undecodable_request_is_dead_lettered_and_answered_when_the_player_can_be_named():
    book, ctx = SpinBook(), make_context()
    broken = b'{"type": "reelstream.spin.requested.v1", "data": {"player_id": "p-9", "stake_minor": "ten"}}'
    effects = handle_request(book, ctx, broken, b"p-9", NOW_MS, 2, 41)
    dead = only(effects.outputs, "dlq")
    assert dead.value == broken
    headers = dict(dead.headers)
    assert headers[dead_letters.CODE] == b"UNDECODABLE"
    assert headers[dead_letters.FIELD] == b"id"  # the first field that is wrong
    assert decoded(only(effects.outputs, "answer")).player_id == "p-9"
    garbage = handle_request(book, ctx, b"\x00not json", None, NOW_MS, 2, 42)
    assert [out.kind for out in garbage.outputs] == ["dlq"]


def test_a_record_keyed_by_another_player_is_refused():
    book, ctx = SpinBook(), make_context()
    effects = handle_request(book, ctx, request_bytes(player="p-1")[1], b"p-2", NOW_MS, 0, 0)
    assert rejection_code(effects) == "INVALID_REQUEST"


def test_a_request_whose_player_cannot_be_read_is_answered_to_the_player_its_key_names():
    book, ctx = SpinBook(), make_context()
    effects = handle_request(book, ctx, b"[1, 2, 3]", b"p-keyed", NOW_MS, 2, 43)
    assert [out.kind for out in effects.outputs] == ["dlq", "answer"]
    answer = decoded(only(effects.outputs, "answer"))
    assert (answer.player_id, answer.code) == ("p-keyed", "INVALID_REQUEST")


def test_a_non_ascii_player_id_is_never_answered_to():
    book, ctx = SpinBook(), make_context()
    broken = '{"type": "reelstream.spin.requested.v1", "data": {"player_id": "été", "stake_minor": "ten"}}'.encode()
    effects = handle_request(book, ctx, broken, "été".encode(), NOW_MS, 2, 44)
    assert [out.kind for out in effects.outputs] == ["dlq"]
