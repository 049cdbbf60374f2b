"""Under REELSTREAM_ENV=production a service refuses to start without signatures, without a session key ring where it
checks tokens, and without a kept drop key where must-drop pools need one (reelstream/production.py); locally none
of these is asked for. One test starts the real entry point (`reelstream services run`) to see the refusal wired."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reelstream import production
from shared import signing

ROOT = Path(__file__).resolve().parents[3]
SECRET = "s" * 32
KEY = "ab" * 32


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("signing")
    signing.generate(folder)
    return folder


def _env(keys: Path, **changes: str) -> dict[str, str]:
    env = {
        "REELSTREAM_ENV": "production",
        signing.SIGNING_DIR_ENV: str(keys),
        "REELSTREAM_SESSION_SECRET": SECRET,
        "REELSTREAM_JACKPOT_DROP_KEY": KEY,
        "REELSTREAM_POOLS_VERSION": "pools-v2",
    }
    env.update(changes)
    return {name: value for name, value in env.items() if value != "<unset>"}


@pytest.mark.parametrize("service", ["spin", "wallet", "jackpot", "monitor", "projector"])
def test_a_fully_configured_production_service_starts(keys, service):
    assert production.problems(_env(keys), service) == []


@pytest.mark.parametrize("service", ["spin", "wallet", "jackpot", "monitor", "projector"])
@pytest.mark.parametrize("unset", ["<unset>", "", "  "])
def test_production_without_a_signing_directory_refuses_every_service(keys, service, unset):
    with pytest.raises(production.ProductionRefused, match=f"{signing.SIGNING_DIR_ENV} is not set"):
        production.require_ready(_env(keys, REELSTREAM_SIGNING_DIR=unset), service)


def test_production_with_an_empty_or_unreadable_signing_directory_or_without_the_writers_key_refuses(keys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (
        "holds no readable public.json"
        in production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(empty)), "wallet")[0]
    )
    assert production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(tmp_path / "absent")), "projector")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / signing.PUBLIC_FILE).write_text("{not json")
    assert (
        "cannot read the public keys" in production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(broken)), "spin")[0]
    )
    (broken / signing.PUBLIC_FILE).write_text('{"keys": []}')
    assert "lists no key" in production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(broken)), "projector")[0]
    readers_only = tmp_path / "readers"
    signing.generate(readers_only, writers=("wallet",))
    assert production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(readers_only)), "wallet") == []
    assert (
        "'spin''s signing key" in production.problems(_env(keys, REELSTREAM_SIGNING_DIR=str(readers_only)), "spin")[0]
    )


def test_production_spin_without_a_session_key_or_with_a_short_one_refuses(keys):
    assert "no session key" in production.problems(_env(keys, REELSTREAM_SESSION_SECRET="<unset>"), "spin")[0]
    assert "shorter than" in production.problems(_env(keys, REELSTREAM_SESSION_SECRET="changeme"), "spin")[0]
    assert production.problems(_env(keys, REELSTREAM_SESSION_SECRET="<unset>"), "wallet") == []  # checks no tokens


def test_production_jackpot_with_must_drop_pools_and_no_kept_drop_key_refuses(keys):
    missing = production.problems(_env(keys, REELSTREAM_JACKPOT_DROP_KEY="<unset>"), "jackpot")
    assert "REELSTREAM_JACKPOT_DROP_KEY is not set" in missing[0]
    assert "hex" in production.problems(_env(keys, REELSTREAM_JACKPOT_DROP_KEY="abcd"), "jackpot")[0]
    # Without must-drop pools there is nothing to seal: no key is needed.
    assert (
        production.problems(
            _env(keys, REELSTREAM_JACKPOT_DROP_KEY="<unset>", REELSTREAM_POOLS_VERSION="pools-v1"), "jackpot"
        )
        == []
    )


def test_locally_nothing_is_asked_for():
    assert production.problems({"REELSTREAM_ENV": "local"}, "jackpot") == []
    assert production.problems({}, "spin") == []


def test_the_service_entry_point_exits_at_start_naming_the_gap(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELSTREAM_")}
    env.update(
        {"REELSTREAM_ENV": "production", "REELSTREAM_OPERATORS_FILE": str(ROOT / "deploy/operators/production.json")}
    )
    env["REELSTREAM_STATE_DIR"] = str(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "reelstream.cli", "services", "run", "projector"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 78, run.stderr
    assert "refusing to start projector under REELSTREAM_ENV=production" in run.stderr
    assert f"{signing.SIGNING_DIR_ENV} is not set" in run.stderr
