"""Every command of the typer app, run with generated bad arguments, answers with one line and exit code 2, never a
traceback; a programmer error still surfaces as itself (exit 1, named), so a catch-all turning every failure into
a usage error fails here."""

from __future__ import annotations

import contextlib
from enum import Enum
import io
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reelstream.cli import leaf_commands, run

# What a command may be given that is wrong, by the metavar its parameter shows in help.
INT64_OVER = str(2**63)
BAD = {
    "AMOUNT_MINOR": st.sampled_from(["10.50", "-500", "0", "ten", INT64_OVER, "1e3", "99999999999999999999"]),
    "EUR|DKK": st.sampled_from(["eu", "XYZ", "", "€"]),
    "PLAYER_ID": st.sampled_from(["", "a b", "x" * 65, "p/1", "ø"]),
    "OPERATOR": st.sampled_from(["nope", "", "Demo-A", "demo-a "]),
    "UUID": st.sampled_from(["zz", "1234", "not-a-uuid"]),
    "OFFSET": st.sampled_from(["-1", "x", INT64_OVER, "1.5"]),
    "TIME": st.sampled_from(["yesterday-ish", "2026-13-01", "-1y", "30/11/2026", "soon"]),
    "POOL_ID": st.sampled_from(["nope", "", "dm-purple"]),
    "TARGET": st.sampled_from(["somewhere", "offset:x", "time:never"]),
    "PREFIX": st.sampled_from(["a b", "x" * 65, "p/"]),
    "[PREFIX]": st.sampled_from(["a b", "x" * 65, "p/"]),
    "NETWORK_ID": st.sampled_from(["a b", "x" * 65]),
    "GROUP": st.sampled_from(["a b", "x" * 250, ""]),
    "FILE": st.sampled_from(["/nonexistent-dir/report.csv", "", "/tmp"]),
    "DIR": st.sampled_from(["/proc/version", ""]),
    "TOPIC": st.sampled_from(["bad topic!", "", "x" * 250]),
    "SERVICE": st.sampled_from(["web", "", "Wallet"]),
    "GAME": st.sampled_from(["poker", "", "Rising-Joker"]),
    "STOPS": st.sampled_from(["abc", "1,2,3", "1,2,3,4,5,6", "-1,0,0,0,0", "99999,1,1,1,1"]),
    "SEED_HEX": st.sampled_from(["zz", "ab" * 31, "AB" * 32]),
    "STATE_JSON": st.sampled_from(["{", "[]", "nope"]),
    "MODEL_VERSION": st.sampled_from(["nope", "v0", "stjernestoev-v1"]),
    "SPINS": st.sampled_from(["0", "-5", "x", "1" + "0" * 12]),
    "PROCS": st.sampled_from(["0", "65", "x"]),
    "STAKE_MINOR": st.sampled_from(["0", "-100", "x", "7"]),
}
CHOICE_BAD = st.sampled_from(["xml", "", "TABLE!"])
NUMBER_BAD = st.sampled_from(["abc", "1.2.3", INT64_OVER + "0" * 5, "-"])
VALID = {"PLAYER_ID": "p-1", "AMOUNT_MINOR": "100", "POOL_ID": "dm-green"}
COMMANDS = list(leaf_commands())


def _bad_values(param) -> st.SearchStrategy[str] | None:
    metavar = param.metavar or ""
    if metavar in BAD:
        return BAD[metavar]
    if getattr(param, "is_flag", False):
        return None
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return CHOICE_BAD
    if annotation in (int, float):
        outside = [str(param.min - 1)] if getattr(param, "min", None) is not None else []
        outside += [str(param.max + 1)] if getattr(param, "max", None) is not None else []
        return st.sampled_from(["abc", "1.2.3", "", "-", *outside])
    return None


def _argv(path: tuple[str, ...], command, bad_param, bad_value: str) -> list[str]:
    argv = list(path)
    for param in command.params:
        if param.param_type_name != "argument":
            continue
        argv.append(bad_value if param is bad_param else VALID.get(param.metavar or "", "rising-joker"))
    if bad_param.param_type_name == "option":
        argv += [bad_param.opts[-1] if bad_param.opts[-1].startswith("--") else bad_param.opts[0], bad_value]
    return argv


def _cases():
    for path, command in COMMANDS:
        for param in command.params:
            if (values := _bad_values(param)) is not None:
                yield path, command, param, values


CASES = list(_cases())


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def no_servers(monkeypatch):
    # A command that got past its argument checks would try these and fail loudly instead of doing anything.
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")


def _assert_usage_error(argv: list[str]) -> None:
    code, out, err = _run(argv)
    assert code == 2, (argv, code, out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, (argv, err)
    assert lines[0].startswith("reelstream") and "error:" in lines[0] and len(lines[0]) > 30, lines


def test_every_command_takes_part():
    covered = {path for path, *_ in CASES}
    assert len(COMMANDS) >= 40
    # Every command refuses an unknown option (below); these have a value to get wrong as well.
    with_numbers = {
        path
        for path, command in COMMANDS
        for param in command.params
        if getattr(getattr(param, "type_descriptor", None), "annotation", None) in (int, float)
    }
    assert with_numbers <= covered and len(with_numbers) >= 25
    for expected in [
        ("wallet", "deposit"),
        ("wallet", "players"),
        ("ops", "groups"),
        ("ops", "replay"),
        ("reports", "ggr"),
        ("jackpot", "wins"),
        ("audit",),
        ("recall",),
        ("math", "evaluate"),
        ("math", "simulate"),
    ]:
        assert expected in covered, expected


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=" ".join)
def test_an_unknown_option_is_one_line_and_exit_2(path):
    _assert_usage_error([*path, "--no-such-option-anywhere", "1"])


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_bad_value_for_any_parameter_of_any_command_is_one_line_and_exit_2(data):
    path, command, param, values = data.draw(st.sampled_from(CASES))
    _assert_usage_error(_argv(path, command, param, data.draw(values)))


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["wallet", "deposit", "p-1", "10.50"], "write 1050 for 10.50"),
        (["wallet", "deposit", "p-1", "-500"], "amounts are positive whole numbers"),
        (["wallet", "deposit", "p-1", "99999999999999999999"], "at most 9,223,372,036,854,775,807"),
        (["wallet", "deposit", "p-1", "100", "--currency", "SEK"], "accepted: EUR, DKK"),
        (["wallet", "deposit", "", "100"], "is not a player id"),
        (["wallet", "deposit", "newbie-1", "1000000000000"], "DEPOSIT_ABOVE_CAP"),
        (["reports", "ggr", "--until", "soon"], "2026-11-30"),
    ],
)
def test_the_error_line_carries_the_hint_a_person_needs(argv, hint):
    code, _, err = _run(argv)
    assert code == 2
    assert hint in err


def test_lowercase_currency_is_read_as_the_code(monkeypatch):
    from reelstream import arguments

    assert arguments.currency("eur") == "EUR"


def test_a_programmer_error_is_not_disguised_as_a_usage_error(monkeypatch):
    from reelstream.commands import wallet

    def broken(player_id):
        raise ZeroDivisionError("a bug, not a bad argument")

    monkeypatch.setattr(wallet, "_player_events", broken)
    with pytest.raises(ZeroDivisionError):
        run(["wallet", "balance", "p-1"])


def test_a_programmer_error_exits_1_naming_the_error():
    script = (
        "import sys; from reelstream.commands import wallet\n"
        "def broken(player_id): raise ZeroDivisionError('a bug')\n"
        "wallet._player_events = broken\n"
        "from reelstream.cli import main; sys.argv = ['reelstream', 'wallet', 'balance', 'p-1']; main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1"},
    )
    assert done.returncode == 1
    assert "ZeroDivisionError: a bug" in done.stderr


def test_version_and_no_bool_in_help():
    code, out, _ = _run(["--version"])
    assert code == 0 and out.startswith("reelstream ")
    for path, _ in COMMANDS:
        code, out, _ = _run([*path, "--help"])
        assert code == 0
        assert "<bool>" not in out, path


def test_a_server_that_does_not_answer_is_one_line_and_exit_1(monkeypatch):
    from kafka.errors import KafkaConnectionError

    from reelstream.commands import wallet

    def unreachable(player_id):
        raise KafkaConnectionError("127.0.0.1:1 refused")

    monkeypatch.setattr(wallet, "_player_events", unreachable)
    code, _, err = _run(["wallet", "balance", "p-1"])
    assert code == 1
    line = err.strip()
    assert "\n" not in line
    assert line.startswith("reelstream wallet balance p-1: cannot reach a server: KafkaConnectionError")
    assert "127.0.0.1:1 refused" in line


def test_a_deposit_above_the_cap_goes_out_with_confirm(monkeypatch):
    from reelstream.commands import wallet

    sent = []
    monkeypatch.setattr(wallet, "_send_and_wait", lambda data, timeout_s, cashier: sent.append(data))
    code, _, _ = _run(["wallet", "deposit", "newbie-1", "1000000000000", "--confirm"])
    assert code == 0
    assert [(d.player_id, d.amount_minor, d.currency) for d in sent] == [("newbie-1", 1_000_000_000_000, "EUR")]


@pytest.mark.parametrize("argv", [["wallet", "balance", "nobody"], ["wallet", "history", "nobody"]])
def test_not_found_exits_3_with_a_line(monkeypatch, argv):
    from reelstream.commands import wallet

    monkeypatch.setattr(wallet, "_player_events", lambda player_id: [])
    code, out, err = _run(argv)
    assert code == 3
    assert "nobody" in err and out == ""


@pytest.mark.parametrize(
    "path, command, param, value",
    [(path, command, param, value) for path, command, param, values in CASES for value in values.elements],
    ids=lambda item: item if isinstance(item, str) else getattr(item, "name", None) or " ".join(item),
)
def test_every_bad_value_of_every_parameter_is_one_line_and_exit_2(path, command, param, value):
    _assert_usage_error(_argv(path, command, param, value))


def test_a_diagnosed_failure_names_the_error_it_explains_too(monkeypatch):
    # The diagnosis probes after the failure, when the broker may be gone for another reason (a bench stops its own
    # cluster on the way out): its line alone once hid the error that stopped the command.
    from kafka.errors import KafkaConnectionError

    from reelstream.commands import wallet
    from shared.security import _RECENT, note_client, security_for

    def unreachable(player_id):
        note_client("127.0.0.1:1", security_for())
        raise KafkaConnectionError("the metadata of 127.0.0.1:1 timed out")

    saved = list(_RECENT)
    monkeypatch.setattr(wallet, "_player_events", unreachable)
    try:
        code, _, err = _run(["wallet", "balance", "p-1"])
    finally:
        _RECENT[:] = saved
    assert code == 1
    first, after = err.strip().splitlines()
    assert first.startswith("error: kafka: ") and "127.0.0.1:1" in first  # what it says depends on the security
    assert after == "  after KafkaConnectionError: the metadata of 127.0.0.1:1 timed out"
