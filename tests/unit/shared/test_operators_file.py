"""The operators file (shared/operators.py): exactly `{"operators": [{"id": ...}]}`, validated at load with errors
that name the file and the problem; unset, the demo file outside production and a refusal under production."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared import operators
from shared.operators import DEMO_FILE, FILE_ENV, Operator, OperatorsFileError, SeamlessWallet, file_of, load_file

ROOT = Path(__file__).resolve().parents[3]
_WALLET = {
    "url": "https://wallet.op-a.example/api",
    "protocol": "hub88",
    "key_id": "reelstream-1",
    "private_key_file": "/run/secrets/op-a/reelstream.pem",
}


def _file(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "operators.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def test_a_good_file_gives_its_operators_in_order_with_the_ledger_wallet_mode_by_default(tmp_path):
    path = _file(tmp_path, {"operators": [{"id": "op-b"}, {"id": "op-a", "wallet_mode": "ledger"}]})
    assert load_file(path) == (Operator("op-b", "ledger"), Operator("op-a", "ledger"))
    assert load_file(_file(tmp_path, {"operators": []})) == ()


def test_the_committed_files_are_the_demo_operators_and_none_for_production():
    assert [o.id for o in load_file(ROOT / "deploy" / "operators" / "demo.json")] == ["demo-a", "demo-b"]
    assert load_file(ROOT / "deploy" / "operators" / "production.json") == ()
    for name in ("demo.json", "production.json"):  # the same bytes the k8s overlays carry
        text = (ROOT / "deploy" / "operators" / name).read_text()
        assert text == json.dumps(json.loads(text), indent=2) + "\n"


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"operators": [{"id": "Demo"}]}, "'Demo' is not a lower-case DNS label"),
        ({"operators": [{"id": "op-a"}, {"id": "op-a"}]}, "operator ids repeat"),
        ({"operators": [{"id": "op-a", "colour": "red"}]}, "unknown keys ['colour']"),
        ({"operators": [], "extra": 1}, 'the one key "operators"'),
        ({"operators": [{"id": "op-a", "wallet_mode": "cash"}]}, "wallet_mode 'cash'"),
        ({"operators": [{"id": "op-a", "wallet_mode": "seamless"}]}, 'it needs a "wallet" object'),
        ({"operators": [{"id": "op-a", "wallet": _WALLET}]}, '"wallet" is for seamless'),
        ({"operators": [{"name": "op-a"}]}, 'with an "id"'),
        ({"operators": [{"id": 7}]}, "must be a string"),
        ({"operators": {"id": "op-a"}}, "must be a list"),
        (["op-a"], 'the one key "operators"'),
    ],
)
def test_a_bad_file_is_refused_naming_the_file_and_the_problem(tmp_path, document, named):
    path = _file(tmp_path, document)
    with pytest.raises(OperatorsFileError) as refused:
        load_file(path)
    assert str(path) in str(refused.value) and named in str(refused.value)


def test_a_repeated_key_an_oversized_file_and_a_file_that_is_no_json_are_refused(tmp_path):
    path = tmp_path / "operators.json"
    for text, named in (
        ('{"operators": [], "operators": [{"id": "x"}]}', "a key repeats"),
        ("{" * 10 + " " * operators.FILE_BYTES_MAX, "larger than"),
        ("operators: []", "not JSON"),
    ):
        path.write_text(text)
        with pytest.raises(OperatorsFileError, match=named):
            load_file(path)


def test_an_unreadable_or_missing_file_is_refused_naming_it(tmp_path):
    with pytest.raises(OperatorsFileError, match=f"{tmp_path / 'absent.json'}: cannot read"):
        load_file(tmp_path / "absent.json")
    with pytest.raises(OperatorsFileError, match="cannot read"):
        load_file(tmp_path)  # a directory


def test_unset_means_the_demo_file_locally_and_is_refused_under_production(tmp_path):
    assert file_of({}) == DEMO_FILE == ROOT / "deploy" / "operators" / "demo.json"
    assert file_of({"REELSTREAM_ENV": "local"}) == DEMO_FILE
    assert file_of({FILE_ENV: str(tmp_path / "x.json"), "REELSTREAM_ENV": "production"}) == tmp_path / "x.json"
    with pytest.raises(OperatorsFileError, match=f"{FILE_ENV} is not set: under REELSTREAM_ENV=production"):
        file_of({"REELSTREAM_ENV": "production"})


def test_a_process_reads_its_file_at_start_and_one_without_a_file_under_production_does_not_start(tmp_path):
    path = _file(tmp_path, {"operators": [{"id": "op-x"}]})
    script = "from shared import operators, topics; print(operators.OPERATORS, len(topics.ANSWER_TOPICS))"
    env = {k: v for k, v in os.environ.items() if k not in (FILE_ENV, "REELSTREAM_ENV")}
    run = subprocess.run(
        [sys.executable, "-c", script], env={**env, FILE_ENV: str(path)}, cwd=ROOT, capture_output=True, text=True
    )
    assert run.stdout.strip() == "('op-x',) 2", run.stderr
    refused = subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "REELSTREAM_ENV": "production"},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and f"{FILE_ENV} is not set" in refused.stderr


def test_the_local_default_is_package_data_so_an_installed_build_has_it():
    """`pip install .` (the image) ships what the editable checkout reads: deploy.operators is a package."""
    from importlib import resources

    from shared import operators

    shipped = resources.files("deploy.operators") / "demo.json"
    assert shipped.is_file() and shipped.read_bytes() == operators.DEMO_FILE.read_bytes()


def test_a_seamless_operator_names_its_wallet_and_gets_the_default_clocks(tmp_path):
    path = _file(
        tmp_path, {"operators": [{"id": "op-a", "wallet_mode": "seamless", "wallet": _WALLET}, {"id": "op-b"}]}
    )
    seamless, ledger = load_file(path)
    assert seamless.wallet == SeamlessWallet(
        "https://wallet.op-a.example/api",
        "hub88",
        "reelstream-1",
        "/run/secrets/op-a/reelstream.pem",
        3_000,
        5_000,
        86_400,
    )
    assert ledger == Operator("op-b", "ledger", None)
    assert operators.seamless_wallet_of("op-a", (seamless, ledger)) == seamless.wallet
    assert operators.seamless_wallet_of("op-b", (seamless, ledger)) is None
    assert operators.seamless_wallet_of(None, (seamless, ledger)) is None
    clocks = {"call_timeout_ms": 800, "bet_timeout_ms": 2_000, "win_retry_s": 3_600}
    (tuned,) = load_file(
        _file(tmp_path, {"operators": [{"id": "op-a", "wallet_mode": "seamless", "wallet": {**_WALLET, **clocks}}]})
    )
    assert (tuned.wallet.call_timeout_ms, tuned.wallet.bet_timeout_ms, tuned.wallet.win_retry_s) == (800, 2_000, 3_600)


def test_a_seamless_wallet_declares_the_addresses_a_cluster_lets_the_saga_reach_on_its_urls_port(tmp_path):
    egress = {"egress_cidrs": ["203.0.113.0/28", "2001:db8::/64"]}
    (declared,) = load_file(
        _file(tmp_path, {"operators": [{"id": "op-a", "wallet_mode": "seamless", "wallet": {**_WALLET, **egress}}]})
    )
    assert declared.wallet.egress_cidrs == ("203.0.113.0/28", "2001:db8::/64")
    assert declared.wallet.port == 443
    assert SeamlessWallet("http://wallet:8080/api", "hub88", "k", "/k.pem").port == 8080
    assert SeamlessWallet("http://wallet/api", "hub88", "k", "/k.pem").port == 80


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"protocol": "soap"}, "protocol 'soap' is not one of"),
        ({"url": "ftp://wallet.example"}, "not an http(s) URL"),
        ({"url": "https://"}, "not an http(s) URL"),
        ({"url": "https://user:pw@wallet.example"}, "carries credentials"),
        ({"url": "https://user@wallet.example"}, "carries credentials"),
        ({"url": "https://wallet.example/?k=1"}, "carries credentials, a query"),
        ({"url": 7}, "not an http(s) URL"),
        ({"key_id": "a key"}, "key_id 'a key'"),
        ({"private_key_file": " "}, "private_key_file must name a file"),
        ({"private_key_file": None}, "private_key_file must name a file"),
        ({"call_timeout_ms": 0}, "call_timeout_ms must be an integer from 1"),
        ({"call_timeout_ms": 2_000.0}, "call_timeout_ms must be an integer"),
        ({"call_timeout_ms": True}, "call_timeout_ms must be an integer"),
        ({"call_timeout_ms": 4_000, "bet_timeout_ms": 3_000}, "bet_timeout_ms must be an integer from 4000"),
        ({"bet_timeout_ms": 60_001}, "bet_timeout_ms must be an integer from 3000 to 60000"),
        ({"win_retry_s": 59}, "win_retry_s must be an integer from 60"),
        ({"win_retry_s": 8 * 24 * 3600}, "win_retry_s must be an integer from 60 to 604800"),
        ({"secret": "x"}, "unknown keys ['secret']"),
        ({"url": "https://wallet.example:99999/"}, "names no valid port"),
        ({"egress_cidrs": "203.0.113.0/28"}, "egress_cidrs must be a list"),
        ({"egress_cidrs": ["0.0.0.0/0"]}, "'0.0.0.0/0' is not a network's CIDR"),
        ({"egress_cidrs": ["::/0"]}, "'::/0' is not a network's CIDR"),
        ({"egress_cidrs": ["203.0.113.5/24"]}, "'203.0.113.5/24' is not a network's CIDR"),
        ({"egress_cidrs": ["wallet.example"]}, "'wallet.example' is not a network's CIDR"),
        ({"egress_cidrs": [f"203.0.113.{n}/32" for n in range(17)]}, "at most 16 CIDRs"),
    ],
)
def test_a_seamless_wallet_with_a_bad_setting_is_refused_naming_the_operator_and_the_setting(tmp_path, change, named):
    wallet = {**_WALLET, **change}
    path = _file(tmp_path, {"operators": [{"id": "op-a", "wallet_mode": "seamless", "wallet": wallet}]})
    with pytest.raises(OperatorsFileError) as refused:
        load_file(path)
    assert f"{path}: operator 'op-a''s wallet: " in str(refused.value) and named in str(refused.value)


@pytest.mark.parametrize("missing", ["url", "protocol", "key_id", "private_key_file"])
def test_a_seamless_wallet_missing_a_required_setting_is_refused(tmp_path, missing):
    wallet = {key: value for key, value in _WALLET.items() if key != missing}
    path = _file(tmp_path, {"operators": [{"id": "op-a", "wallet_mode": "seamless", "wallet": wallet}]})
    with pytest.raises(OperatorsFileError, match=rf"missing keys \['{missing}'\]"):
        load_file(path)


def test_the_protocol_names_are_the_seamless_packages_protocols():
    from seamless.protocols import PROTOCOLS

    assert set(operators.WALLET_PROTOCOLS) == set(PROTOCOLS)
