"""The history checker (tools/linearizability, porcupine) on a history a chaos run recorded (data/recorded-history.json:
four checked players, operations from four clients, overlapping): it passes as recorded and fails once one
answer's balance is corrupted. It builds the Go program: without Go these tests fail, they do not skip."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from reelstream.chaos import linearizability

RECORDED = Path(__file__).parent / "data" / "recorded-history.json"


def recorded() -> dict:
    return json.loads(RECORDED.read_text())


def written(tmp_path: Path, history: dict) -> Path:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return path


def overlapping_pairs(operations: list[dict]) -> int:
    return sum(
        1
        for n, a in enumerate(operations)
        for b in operations[n + 1 :]
        if a["client"] != b["client"] and b["invoke_ns"] <= (a["complete_ns"] or 2**63)
    )


def test_the_recorded_history_has_concurrent_operations_from_several_clients():
    for player in recorded()["players"].values():
        assert len({op["client"] for op in player["operations"]}) >= 2
    assert sum(overlapping_pairs(p["operations"]) for p in recorded()["players"].values()) > 0


def test_a_clean_recorded_history_is_linearizable(tmp_path):
    verdict = linearizability.check(written(tmp_path, recorded()))
    assert verdict.linearizable
    assert {found["result"] for found in verdict.players.values()} == {"Ok"}


def test_one_corrupted_balance_makes_it_not_linearizable(tmp_path):
    history = copy.deepcopy(recorded())
    operations = history["players"]["chaos-checked-1"]["operations"]
    answered = [op for op in operations if op["balance_after_minor"] is not None]
    answered[len(answered) // 2]["balance_after_minor"] += 1
    verdict = linearizability.check(written(tmp_path, history), viz_dir=tmp_path / "viz")
    assert not verdict.linearizable
    assert verdict.players["chaos-checked-1"]["result"] == "Illegal"
    assert verdict.players["chaos-checked-0"]["result"] == "Ok"
    assert (tmp_path / "viz" / "chaos-checked-1.html").exists()


def test_a_refusal_for_funds_the_balance_covered_makes_it_not_linearizable(tmp_path):
    history = copy.deepcopy(recorded())
    operations = history["players"]["chaos-checked-1"]["operations"]
    deposit = next(op for op in operations if op["kind"] == "deposit" and op["outcome"] == "done")
    deposit.update(outcome="refused", code="INSUFFICIENT_FUNDS", balance_after_minor=None)
    assert not linearizability.check(written(tmp_path, history)).linearizable


def test_an_empty_history_proves_nothing(tmp_path):
    assert not linearizability.check(written(tmp_path, {"players": {}})).linearizable
