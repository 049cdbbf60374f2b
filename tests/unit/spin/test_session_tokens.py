"""Session tokens: genuine ones pass; forged, foreign, expired, rotated-out and malformed ones say what is wrong."""

import pytest

from shared.session import (
    SessionKeyError,
    TokenProblem,
    issue_token,
    key_ring,
    ring_text,
    token_operator,
    token_problem,
)

SECRET = "k1:test-secret-of-sixteen-chars"
NOW_MS = 1_700_000_000_000


def test_a_genuine_token_is_accepted_before_its_expiry():
    token = issue_token(SECRET, "p-1", NOW_MS + 1000)
    assert token_problem(SECRET, token, "p-1", NOW_MS) is None
    assert token_problem(SECRET, token, "p-1", NOW_MS + 999) is None


def test_a_token_is_expired_at_and_after_its_expiry():
    token = issue_token(SECRET, "p-1", NOW_MS)
    assert token_problem(SECRET, token, "p-1", NOW_MS) is TokenProblem.EXPIRED
    assert token_problem(SECRET, token, "p-1", NOW_MS + 1) is TokenProblem.EXPIRED


def test_another_players_token_is_foreign():
    token = issue_token(SECRET, "p-1", NOW_MS + 1000)
    assert token_problem(SECRET, token, "p-2", NOW_MS) is TokenProblem.FOREIGN


def test_a_token_signed_with_another_secret_under_the_same_key_id_is_forged():
    token = issue_token("k1:another-secret-of-sixteen", "p-1", NOW_MS + 1000)
    assert token_problem(SECRET, token, "p-1", NOW_MS) is TokenProblem.FORGED


def test_a_token_with_a_changed_expiry_is_forged():
    version, kid, player, _, signature = issue_token(SECRET, "p-1", NOW_MS - 1).split(".")
    stretched = ".".join((version, kid, player, str(NOW_MS + 10**9), signature))
    assert token_problem(SECRET, stretched, "p-1", NOW_MS) is TokenProblem.FORGED


def test_garbage_is_malformed():
    for garbage in ("", "x", "v1.a.b.c", "v2.k1.cC0x.1", "v2.k1.cC0x.-5.sig", "v2.k!.cC0x.5.sig", "v2." * 400):
        assert token_problem(SECRET, garbage, "p-1", NOW_MS) is TokenProblem.MALFORMED


def test_a_non_ascii_token_is_malformed_not_a_crash():
    genuine = issue_token(SECRET, "p-1", NOW_MS + 1000)
    assert token_problem(SECRET, genuine[:-1] + "é", "p-1", NOW_MS) is TokenProblem.MALFORMED


def test_after_a_rotation_old_tokens_still_pass_and_new_ones_carry_the_new_key_id():
    old = issue_token(SECRET, "p-1", NOW_MS + 1000)
    rotated = "k2:the-next-secret-sixteen," + SECRET
    assert token_problem(rotated, old, "p-1", NOW_MS) is None
    assert issue_token(rotated, "p-1", NOW_MS + 1000).split(".")[1] == "k2"


def test_a_token_of_a_key_rotated_out_is_refused_as_such():
    old = issue_token(SECRET, "p-1", NOW_MS + 1000)
    assert token_problem("k2:the-next-secret-sixteen", old, "p-1", NOW_MS) is TokenProblem.UNKNOWN_KEY


def test_a_bare_secret_gets_a_derived_key_id_and_round_trips_through_the_ring_text():
    ring = key_ring("a-bare-secret-sixteen-chars")
    assert key_ring(ring_text(ring)) == ring
    assert "a-bare-secret" not in repr(ring)


@pytest.mark.parametrize(
    "text", ["", "k1:short", "k 1:a-long-enough-secret!", "k1:a-long-enough-secret,k1:another-long-secret"]
)
def test_unusable_key_settings_are_refused_with_a_reason(text):
    with pytest.raises(SessionKeyError):
        key_ring(text)


OPERATORS = "k3@op-a:secret-of-operator-a-16,k2@op-b:secret-of-operator-b-16,k1:secret-of-no-operator-16"


def test_an_operators_token_is_signed_with_its_own_newest_key_and_names_it():
    ring = key_ring(OPERATORS)
    for operator_id, kid in (("op-a", "k3"), ("op-b", "k2"), (None, "k1")):
        token = issue_token(ring, "p-1", NOW_MS + 1000, operator_id)
        assert token.split(".")[1] == kid and token_operator(ring, token) == operator_id
        assert token_problem(ring, token, "p-1", NOW_MS) is None


def test_operator_keys_survive_the_ring_text_and_an_unknown_operator_has_no_key():
    ring = key_ring(OPERATORS)
    assert ring_text(ring) == OPERATORS and key_ring(ring_text(ring)) == ring
    with pytest.raises(SessionKeyError, match="no session key of operator 'op-c'"):
        issue_token(ring, "p-1", NOW_MS + 1000, "op-c")


def test_a_bad_operator_id_in_the_key_configuration_is_refused_without_the_secret():
    with pytest.raises(SessionKeyError, match="is not an operator id") as raised:
        key_ring("k1@op/a:secret-that-is-long-enough")
    assert "secret-that" not in str(raised.value)


def test_garbage_names_no_operator():
    assert token_operator(key_ring(OPERATORS), "not.a.token") is None
