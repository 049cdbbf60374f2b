"""Session tokens: genuine ones pass; forged, foreign, expired and malformed ones say what is wrong."""
from shared.session import TokenProblem, issue_token, token_problem

SECRET = "test-secret"
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


def test_a_token_signed_with_another_secret_is_forged():
    token = issue_token("other-secret", "p-1", NOW_MS + 1000)
    assert token_problem(SECRET, token, "p-1", NOW_MS) is TokenProblem.FORGED


def test_a_token_with_a_changed_expiry_is_forged():
    version, player, _, signature = issue_token(SECRET, "p-1", NOW_MS - 1).split(".")
    stretched = ".".join((version, player, str(NOW_MS + 10**9), signature))
    assert token_problem(SECRET, stretched, "p-1", NOW_MS) is TokenProblem.FORGED


def test_garbage_is_malformed():
    for garbage in ("", "x", "v1.a.b.c", "v2.cC0x.1.sig", "v1.cC0x.-5.sig"):
        assert token_problem(SECRET, garbage, "p-1", NOW_MS) is TokenProblem.MALFORMED


def test_a_signature_with_non_ascii_characters_is_forged_not_an_error():
    version, player, expiry, _ = issue_token(SECRET, "p-1", NOW_MS + 1000).split(".")
    for signature in ("ü" * 43, "sig\u2603", "\x00"):
        assert token_problem(SECRET, ".".join((version, player, expiry, signature)), "p-1", NOW_MS) is TokenProblem.FORGED
