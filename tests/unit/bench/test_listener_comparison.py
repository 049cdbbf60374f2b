"""The secured-vs-plaintext comparison: its figures are medians of interleaved bursts, and its plaintext side really
connects in plaintext whatever role files the environment names."""

from __future__ import annotations

import os

import pytest
import typer

from bench import listeners
from shared.security import security_for


def bursts(secured: list[float], plaintext: list[float]) -> list[dict]:
    order = []
    for a, b in zip(secured, plaintext):
        order += [
            {"side": "secured", "spins_per_s": a, "rejected": {}},
            {"side": "plaintext", "spins_per_s": b, "rejected": {}},
        ]
    return order


def test_the_ratio_is_of_the_medians_and_judged_against_the_target():
    summary = listeners.summary(bursts([90.0, 300.0, 100.0], [100.0, 110.0, 120.0]))
    assert summary["secured"]["median_spins_per_s"] == 100.0
    assert summary["plaintext"]["median_spins_per_s"] == 110.0
    assert summary["ratio_secured_to_plaintext"] == round(100 / 110, 3)
    assert summary["ratio_ok"] is True
    assert summary["order"] == ["secured", "plaintext"] * 3
    slow = listeners.summary(bursts([70.0, 70.0], [100.0, 100.0]))
    assert slow["ratio_secured_to_plaintext"] == 0.7 and slow["ratio_ok"] is False


def test_the_plaintext_side_ignores_the_role_files_and_the_environment_is_restored(tmp_path, monkeypatch):
    (tmp_path / "spin.json").write_text('{"security_protocol": "SASL_SSL"}')
    monkeypatch.setenv("REELSTREAM_KAFKA_CLIENTS_DIR", str(tmp_path))
    monkeypatch.delenv("KAFKA_SECURITY_PROTOCOL", raising=False)
    with listeners.environment(listeners.plaintext_overrides("127.0.0.1:9999")):
        assert security_for("spin").protocol == "PLAINTEXT"
        assert os.environ["KAFKA_BOOTSTRAP_SERVERS"] == "127.0.0.1:9999"
    assert os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"] == str(tmp_path)
    assert "KAFKA_SECURITY_PROTOCOL" not in os.environ


def test_without_the_benchmark_listener_the_comparison_says_how_to_get_one(monkeypatch):
    monkeypatch.delenv(listeners.BENCH_BOOTSTRAP_ENV, raising=False)
    with pytest.raises(typer.BadParameter, match="--bench-listener"):
        listeners.bench_bootstrap()
