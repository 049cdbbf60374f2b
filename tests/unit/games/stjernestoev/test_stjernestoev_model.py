"""The released model file: pinned bytes, validation at load, and the par sheet proving this very model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.stjernestoev.model import load_model, model_bytes, parse_model
from mathtools.stjernestoev_proof import criterion_text, verdict
from shared.invariant import InvariantViolation

PINNED_SHA256 = {
    "stjernestoev-v1": "edeccc11b0f436e1487a72ea340bcce42c9ef05d441e8ff3455c2048217a0e1c",
    "stjernestoev-v2": "54d1debbae99cce0e4262bba7268fa9db0bcdb9793d6893bddfccff578ddf959",
    "stjernestoev-v3": "972aaa7cbccfefdfb4ed411709a3fca06f655909fd37dfdce5ad9c6611dbe1a8",
}
PARSHEET = Path(__file__).resolve().parents[4] / "docs" / "math" / "stjernestoev" / "parsheet.json"


def test_released_model_files_never_change():
    for version, sha256 in PINNED_SHA256.items():
        assert load_model(version).sha256 == sha256


def test_the_par_sheet_proves_the_current_model():
    """A changed model without a new simulation proof and par sheet fails here."""
    figures = json.loads(PARSHEET.read_text())
    assert figures["model_sha256"] == load_model().sha256
    assert verdict(figures["simulation"])["passed"]
    assert figures["proof_criterion"] == criterion_text()


def broken(change) -> bytes:
    data = json.loads(model_bytes("stjernestoev-v1"))
    change(data)
    return json.dumps(data).encode()


def test_a_wheel_whose_fixed_value_differs_between_stakes_is_refused():
    def skew(data):
        row = data["wheel"]["weights_by_stake"]["10000"]
        row["25x"] -= 3
        row["100x"] += 3

    with pytest.raises(InvariantViolation, match="equal at every stake"):
        parse_model(broken(skew))


def test_jackpot_weights_that_are_not_linear_in_stake_are_refused():
    def flat(data):
        row = data["wheel"]["weights_by_stake"]["10000"]
        row["jackpot"] -= 1
        row["25x"] += 1

    with pytest.raises(InvariantViolation, match="linear in stake"):
        parse_model(broken(flat))


def test_a_disconnected_graph_is_refused():
    def cut(data):
        data["graph"]["edges"] = [e for e in data["graph"]["edges"] if "O2" not in e]

    with pytest.raises(InvariantViolation, match="connected"):
        parse_model(broken(cut))


def test_a_paytable_that_differs_from_the_seed_shape_is_refused():
    def shrink(data):
        data["paytable_x_stake_by_size_5_to_21"]["red"][0] = "0.325"

    with pytest.raises(InvariantViolation, match="hundredths"):
        parse_model(broken(shrink))


def test_a_wild_with_a_6x_multiplier_is_refused():
    def six(data):
        next(e for e in data["bonus_circle_contents"] if e["content"] == "wild")["multiplier"] = 6

    with pytest.raises(InvariantViolation, match="2x..5x"):
        parse_model(broken(six))
