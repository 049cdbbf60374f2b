"""The ops page finds the last audit where `reelstream audit` writes it by default: one directory for both sides."""

from __future__ import annotations

from pathlib import Path

from services.audit.adapters import checkpoints
from shared.config import AUDIT_JSON, audit_dir, last_audit_report


def test_the_ops_page_reads_the_report_the_audit_writes_by_default(tmp_path: Path):
    env = {"REELSTREAM_STATE_DIR": str(tmp_path)}
    assert last_audit_report(env) == audit_dir(env) / AUDIT_JSON
    assert audit_dir(env) == tmp_path / "audit"


def test_the_default_state_directory_is_dot_reelstream_in_the_working_directory():
    assert audit_dir({}) == Path.cwd() / ".reelstream" / "audit"


def test_an_operator_may_point_the_ops_page_at_another_report(tmp_path: Path):
    elsewhere = tmp_path / "nightly" / "audit.json"
    assert last_audit_report({"REELSTREAM_AUDIT_REPORT": str(elsewhere)}) == elsewhere


def test_the_audit_checkpoints_and_keys_live_beside_the_report(tmp_path: Path):
    env = {"REELSTREAM_STATE_DIR": str(tmp_path)}
    assert checkpoints.default_path("t1.", env).parent == audit_dir(env) / "checkpoints"
    assert checkpoints.key_dir(env) == audit_dir(env) / "keys"


def test_the_ops_page_shows_the_verdict_of_a_report_written_to_the_audit_default(tmp_path: Path):
    from bench.synthetic.spins import play_history, stand_in_lookup
    from services.audit.adapters.report import write_report
    from services.audit.core.audit import run_audit
    from services.monitor.adapters.broker import last_audit

    env = {"REELSTREAM_STATE_DIR": str(tmp_path)}
    result = run_audit(play_history(seed=5, players=1, spins_per_player=3).records(), lookup=stand_in_lookup)
    write_report(result, result.discrepancies, audit_dir(env), "not compared")

    shown = last_audit(last_audit_report(env))
    assert shown is not None
    assert shown["discrepancies"] == 0
