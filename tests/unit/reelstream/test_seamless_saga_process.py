"""The seamless saga as a named service: `services run seamless-saga` finds its package, `services up` starts it
exactly when the operators file names a seamless operator, `services status` lists it then, and under production it
needs the key of the writer it signs as (the wallet)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from reelstream import production
from reelstream.processes import KNOWN, SEAMLESS_SAGA, SERVICES, app_module, deployment_services, spawn
from shared import operators, signing

ROOT = Path(__file__).resolve().parents[3]
WALLET = operators.SeamlessWallet("http://127.0.0.1:9", "hub88", "k1", "/nowhere/key.pem")


def test_a_deployment_runs_the_saga_only_when_an_operator_is_seamless():
    assert deployment_services(()) == SERVICES
    assert deployment_services((operators.Operator("demo-a"),)) == SERVICES
    seamless = (operators.Operator("demo-a"), operators.Operator("demo-b", operators.SEAMLESS, WALLET))
    assert deployment_services(seamless) == (*SERVICES, SEAMLESS_SAGA)
    assert SEAMLESS_SAGA not in SERVICES and SEAMLESS_SAGA in KNOWN


def test_the_saga_runs_from_its_package_under_its_service_name():
    from services.seamless_saga import app

    assert app_module(SEAMLESS_SAGA) == app.__name__
    assert app.SERVICE == SEAMLESS_SAGA  # its ready line and metrics label are the name `services up` waits for
    assert callable(app.main)
    assert app_module("wallet") == "services.wallet.app"


def test_spawn_knows_the_saga_and_refuses_an_unknown_name(tmp_path):
    with pytest.raises(ValueError, match="unknown service 'saga'"):
        spawn("saga", log_dir=tmp_path)


def test_under_production_the_saga_needs_its_own_signing_key_and_the_wallets_will_not_do(tmp_path):
    with_own, with_wallets = tmp_path / "own", tmp_path / "wallets"
    signing.generate(with_own, writers=(SEAMLESS_SAGA,))
    signing.generate(with_wallets, writers=("wallet",))
    env = {"REELSTREAM_ENV": "production", "REELSTREAM_SESSION_SECRET": "s" * 32}
    assert production.problems({**env, signing.SIGNING_DIR_ENV: str(with_own)}, SEAMLESS_SAGA) == []
    [problem] = production.problems({**env, signing.SIGNING_DIR_ENV: str(with_wallets)}, SEAMLESS_SAGA)
    assert "'seamless-saga''s signing key" in problem


def _reelstream(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reelstream.cli", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def _status(tmp_path: Path, operators_file: Path | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != operators.FILE_ENV}
    env["REELSTREAM_STATE_DIR"] = str(tmp_path / "state")
    if operators_file is not None:
        env[operators.FILE_ENV] = str(operators_file)
    run = _reelstream(env, "services", "status", "--json")
    assert run.returncode == 0, run.stderr
    return [row["service"] for row in orjson.loads(run.stdout)["services"]]


def test_status_lists_the_saga_where_an_operator_is_seamless(tmp_path):
    wallet = {"url": WALLET.url, "protocol": "hub88", "key_id": "k1", "private_key_file": WALLET.private_key_file}
    seamless = tmp_path / "operators.json"
    seamless.write_text(json.dumps({"operators": [{"id": "demo-b", "wallet_mode": "seamless", "wallet": wallet}]}))
    assert _status(tmp_path, None) == list(SERVICES)
    assert _status(tmp_path, seamless) == [*SERVICES, SEAMLESS_SAGA]


def test_services_run_refuses_a_name_it_does_not_know():
    run = _reelstream(dict(os.environ), "services", "run", "seamless")
    assert run.returncode == 2
    assert "seamless-saga" in run.stderr  # the names it knows, the saga's among them
