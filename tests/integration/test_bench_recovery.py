"""`reelstream bench recovery` on a tiny history (the wallet only, to stay short): the JSON has the keys the issue
lists, the wallet restarted from its snapshots folds less than without them, and the audit of the synthetic history
is clean (the jackpot's restarts are covered by tests/integration/test_snapshot_topics.py)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from reelstream.commands.bench import app


def test_the_recovery_bench_writes_its_figures_for_each_service_with_and_without_a_snapshot(tmp_path, kafka_bootstrap):
    out = tmp_path / "recovery.json"
    result = CliRunner().invoke(
        app, ["recovery", "--sizes", "300", "--players", "10", "--services", "wallet", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    rows = {(row["service"], row["snapshot"]): row for row in figures["recovery"]}
    assert set(rows) == {("wallet", False), ("wallet", True)}
    for row in rows.values():
        assert {"service", "history_spins", "snapshot", "ready_s", "tail_records", "rss_mb"} <= set(row)
        assert row["ready_s"] > 0 and row["rss_mb"] > 0
    for name in ("wallet",):
        assert rows[(name, False)]["tail_records"] > 0 and rows[(name, False)]["partitions_from_snapshot"] == 0
        assert rows[(name, True)]["partitions_from_snapshot"] >= 1
        assert rows[(name, True)]["tail_records"] < rows[(name, False)]["tail_records"]
    audit = figures["audit"]
    assert {"full_s", "incremental_s", "records", "records_per_s", "raw_consume_records_per_s"} <= set(audit)
    assert audit["discrepancies"] == 0 and audit["records"] > 0
    # the audit since the checkpoint left 150 spins before the end reads only those spins' records, and finds nothing
    assert audit["incremental_tail_spins"] == 150 and audit["incremental_discrepancies"] == 0
    assert audit["checkpoint_records"] + audit["incremental_records"] == audit["records"]
    assert audit["incremental_over_full"] == round(audit["incremental_s"] / audit["full_s"], 3)


def test_the_spin_is_stopped_for_its_snapshot_only_once_it_has_consumed_its_inputs(tmp_path, kafka_bootstrap):
    # The jackpot starts first and forwards the history's claim answers to spin.jackpot-answers; the spin's first
    # instance is stopped only once its group has consumed them, so its restart folds nothing after the snapshots.
    out = tmp_path / "recovery.json"
    arguments = ["recovery", "--sizes", "300", "--players", "10", "--services", "jackpot,spin", "--no-audit"]
    result = CliRunner().invoke(app, [*arguments, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = {(row["service"], row["snapshot"]): row for row in json.loads(out.read_text())["recovery"]}
    assert rows[("spin", False)]["caught_up_s"] is not None
    assert "caught_up_s" not in rows[("spin", True)] and "caught_up_s" not in rows[("jackpot", False)]
    assert rows[("spin", True)]["partitions_from_snapshot"] >= 1 and rows[("spin", True)]["tail_records"] == 0
