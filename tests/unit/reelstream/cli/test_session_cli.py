"""`reelstream session rotate --operator` adds a key of that operator and keeps every other operator's keys;
`session issue --operator` signs with it, and names an operator without a key as a bad parameter."""

from __future__ import annotations

from typer.testing import CliRunner

from reelstream.commands.session import app
from shared.session import key_ring, token_operator

RING = "k2@op-b:secret-of-operator-b-16,k1:secret-of-no-operator-16"


def _ring_in(env_file) -> str:
    return next(
        line.split("=", 1)[1]
        for line in env_file.read_text().splitlines()
        if line.startswith("REELSTREAM_SESSION_KEYS=")
    )


def test_rotating_an_operators_key_keeps_the_others_and_tokens_then_bind_to_it(tmp_path, monkeypatch):
    monkeypatch.setenv("REELSTREAM_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("REELSTREAM_SESSION_KEYS", RING)
    env_file = tmp_path / "env"
    rotated = CliRunner().invoke(app, ["rotate", "--operator", "op-a"])
    assert rotated.exit_code == 0, rotated.output
    ring = key_ring(_ring_in(env_file))
    assert [ring.operator_of(kid) for kid, _ in ring.keys] == ["op-a", "op-b", None]
    assert "secret-of" not in rotated.output
    monkeypatch.setenv("REELSTREAM_SESSION_KEYS", _ring_in(env_file))
    issued = CliRunner().invoke(app, ["issue", "--player", "p-1", "--operator", "op-a"])
    assert issued.exit_code == 0, issued.output
    assert token_operator(ring, issued.output.strip()) == "op-a"


def test_issuing_for_an_operator_without_a_key_is_a_bad_parameter(monkeypatch):
    monkeypatch.setenv("REELSTREAM_SESSION_KEYS", RING)
    issued = CliRunner().invoke(app, ["issue", "--player", "p-1", "--operator", "op-z"])
    assert issued.exit_code == 2 and "no session key of operator 'op-z'" in issued.output
