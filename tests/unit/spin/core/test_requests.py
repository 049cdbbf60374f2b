"""A spin request: the contract's refusals, the wager asked for once, repeats answered with the very same answer."""

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.events import broker_time, encode
from shared.events.spin import SeedDrawn, SpinRejected
from tests.support.gwt import data_of
from tests.support.spin import NOW_MS, make_context, request, request_bytes, spin_core

NOW = broker_time(NOW_MS)


def when(raw, player="p-1", now_ms=NOW_MS, offset=0, given=None, ctx=None):
    """The request record `raw` (keyed by `player`) decided by the spin `given` (else a fresh one)."""
    given = given if given is not None else spin_core(ctx or make_context()).given()
    return given.when(request(raw, player.encode(), now_ms, offset=offset), broker_time(now_ms))


def rejection_code(spin) -> str:
    (rejected,) = data_of(spin.decision, SpinRejected)
    return rejected.code


def test_a_valid_request_journals_its_acceptance_and_asks_the_wallet_for_the_wager():
    request_id, raw = request_bytes(stake=20)
    spin = when(raw).then(SeedDrawn).then_answers()  # the acceptance travels with the seed
    accepted = spin.decision.events[0]
    (wager,) = spin.decision.commands
    assert accepted.data.request_id == request_id
    assert accepted.data.stake_minor == 20
    assert "session_token" not in encode(accepted).decode()
    assert (wager.data.transaction_id, wager.data.amount_minor, wager.data.currency) == (request_id, 20, "EUR")


def test_each_business_refusal_has_its_contract_code():
    cases = {
        "UNAUTHENTICATED": dict(token="forged"),
        "UNKNOWN_GAME": dict(game="pachinko"),
        "CURRENCY_MISMATCH": dict(currency="DKK"),
        "INVALID_STAKE": dict(stake=15),
    }
    for code, fields in cases.items():
        spin = when(request_bytes(**fields)[1]).then().then_commands().then_answers(SpinRejected)
        assert rejection_code(spin) == code


def test_a_request_older_than_the_window_or_dated_in_the_future_is_refused():
    given = spin_core(make_context()).given()
    expired = when(request_bytes(time_ms=NOW_MS - DEDUP_WINDOW_MS - 1)[1], given=given)
    assert rejection_code(expired) == "REQUEST_EXPIRED"
    assert rejection_code(when(request_bytes(time_ms=NOW_MS + CLOCK_SKEW_MS + 1)[1], given=given)) == "INVALID_REQUEST"
    assert given.state.records == {}


def test_a_repeat_in_flight_asks_for_the_same_wager_again_and_never_a_second_wager():
    given = spin_core(make_context()).given()
    _, raw = request_bytes()
    first = when(raw, given=given)
    again = when(raw, given=given).then().then_answers()
    assert [encode(command) for command in again.decision.commands] == [encode(first.decision.commands[0])]


def test_a_repeat_in_flight_later_asks_for_the_wager_with_its_first_time_so_the_wallet_can_tell_its_age():
    # Dated at the repeat's time, a wager the wallet has forgotten (after its de-duplication window) would be a new
    # command and settle twice; dated at acceptance, it is the very same command, refused as expired that late.
    given = spin_core(make_context()).given()
    _, raw = request_bytes()
    first = when(raw, given=given)
    again = when(raw, now_ms=NOW_MS + 600_000, offset=1, given=given)
    assert [encode(command) for command in again.decision.commands] == [encode(first.decision.commands[0])]


def test_two_records_with_the_same_bytes_get_answers_of_their_own_and_a_redelivery_the_same_one():
    # A per-record answer (here: a key that is not the player) names the record it answers: copies of one request
    # written twice, at other times, never share an answer id with other bytes (the audit's duplicate-event-id).
    given = spin_core(make_context()).given()
    _, raw = request_bytes()
    first = when(raw, player="someone-else", offset=0, given=given)
    second = when(raw, player="someone-else", now_ms=NOW_MS + 5, offset=1, given=given)
    again = when(raw, player="someone-else", offset=0, given=given)
    assert rejection_code(first) == rejection_code(second) == "INVALID_REQUEST"
    assert first.decision.answers[0].id != second.decision.answers[0].id
    assert encode(again.decision.answers[0]) == encode(first.decision.answers[0])


def test_two_players_refused_under_one_request_id_get_answers_of_their_own():
    # Each partition's book knows only its players: a refusal under a request id another player also used (request
    # ids are public on spin.events) must not share that player's answer id.
    request_id, mine = request_bytes(token="forged")
    _, theirs = request_bytes(request_id=request_id, player="p-2", token="forged")
    first, second = when(mine), when(theirs, player="p-2")
    assert rejection_code(first) == rejection_code(second) == "UNAUTHENTICATED"
    assert first.decision.answers[0].id != second.decision.answers[0].id


def test_a_repeat_of_an_answered_request_is_answered_with_its_first_answer():
    given = spin_core(make_context()).given()
    request_id, raw = request_bytes(token="forged")
    first = when(raw, given=given).decision.answers[0]
    _, retried = request_bytes(request_id=request_id, token="good")
    when(retried, given=given).then_commands().then_answers().then_repeated(first)  # its bytes: the adapter's


def test_the_same_id_with_another_stake_is_a_duplicate_conflict_that_changes_nothing():
    given = spin_core(make_context()).given()
    request_id, raw = request_bytes(stake=10)
    when(raw, given=given)
    _, conflicting = request_bytes(request_id=request_id, stake=20)
    assert rejection_code(when(conflicting, given=given).then().then_commands()) == "DUPLICATE_CONFLICT"
    assert given.state.records[request_id].stake_minor == 10
    assert not given.state.records[request_id].answered


def test_an_undecodable_request_is_dead_lettered_and_answered_when_the_player_can_be_named():
    broken = b'{"type": "reelstream.spin.requested.v1", "data": {"player_id": "p-9", "stake_minor": "ten"}}'
    spin = when(broken, player="p-9").then().then_commands().then_dead_letters("UNDECODABLE")
    assert spin.decision.dead_letters[0].field == "id"  # the first field that is wrong
    (answer,) = data_of(spin.decision, SpinRejected)
    assert (answer.player_id, answer.code) == ("p-9", "INVALID_REQUEST")
    garbage = spin_core(make_context()).given().when(request(b"\x00not json", None), NOW)
    garbage.then_dead_letters("UNDECODABLE").then_answers()


def test_a_record_keyed_by_another_player_is_refused():
    assert rejection_code(when(request_bytes(player="p-1")[1], player="p-2")) == "INVALID_REQUEST"


def test_a_request_whose_player_cannot_be_read_is_answered_to_the_player_its_key_names():
    spin = when(b"[1, 2, 3]", player="p-keyed").then_dead_letters("UNDECODABLE").then_answers(SpinRejected)
    answer = spin.decision.answers[0].data
    assert (answer.player_id, answer.code) == ("p-keyed", "INVALID_REQUEST")


def test_a_non_ascii_player_id_is_never_answered_to():
    broken = '{"type": "reelstream.spin.requested.v1", "data": {"player_id": "été", "stake_minor": "ten"}}'.encode()
    when(broken, player="été").then().then_commands().then_dead_letters("UNDECODABLE").then_answers()
