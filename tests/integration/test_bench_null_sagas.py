"""`reelstream bench spins --null-sagas` on a few hundred spins per saga: the real saga, N6 and N3 run side by side
on their own prefixes through the real broker, every request gets exactly one answer from each, and the JSON carries
the figures the issue names (burst per saga, p99 per saga at each load, data records and markers per spin, the real
saga's records and bytes by topic at each load, the idle platform's CPU)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from reelstream.commands.bench import app

SAGAS = ("real", "null6", "null3")


def test_the_null_saga_bench_answers_every_request_once_and_writes_the_issues_figures(tmp_path, kafka_bootstrap):
    out = tmp_path / "spins.json"
    arguments = ["spins", "--null-sagas", "--spins", "100", "--players", "200", "--loads", "50"]
    arguments += ["--load-spins", "200", "--rounds", "2", "--bootstrap", kafka_bootstrap, "--out", str(out)]
    arguments += ["--idle-seconds", "3"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert set(figures["burst"]) == set(SAGAS)
    assert all(figures["burst"][name] > 0 for name in SAGAS)
    (load,) = figures["loads"]
    assert load["spins_per_s"] == 50
    for name in SAGAS:
        assert load[f"{name}_p99_ms"] > 0
        assert load["by_saga"][name]["requests"] == 200
        assert load["by_saga"][name]["settled"] == 200
        # Each process's loop timings from its own /metrics: every saga's spin and wallet decided and committed.
        loop = load["by_saga"][name]["loop"]
        assert set(loop) == {"spin", "wallet", "jackpot"}, name
        for role in ("spin", "wallet"):
            assert loop[role]["commit"]["n"] > 0 and loop[role]["commit"]["p99_ms"] > 0, (name, role, loop[role])
            assert loop[role]["decide"]["n"] > 0 and loop[role]["batch"]["n"] > 0, (name, role, loop[role])
    for name, answers in figures["answers"].items():
        assert answers["requests"] == 200 + 100 + 200, name  # warm-up, burst, the load
        assert answers["once"] == answers["requests"], (name, answers)
    counts = figures["records_per_spin"]
    assert {"data", "markers"} <= set(counts)
    by_saga = counts["by_saga"]
    # N6 writes the nine data records of a spin without a claim; N3 six; the real three-hop saga six of its own
    # (request, seed with the acceptance, place-wager, debited, settled, answer), its contributions packed a spin
    # transaction and network (one record for one or more), the jackpot's contribution batches, its meters and the
    # services' snapshots, which vary with timing.
    assert by_saga["null6"]["data"] == 9.0
    assert by_saga["null3"]["data"] == 6.0
    real = by_saga["real"]["by_topic"]
    six = {"spin.requests": 1.0, "spin.journal": 1.0, "wallet.internal": 1.0, "wallet.events": 2.0}
    six |= {"spin.events": 1.0}
    assert {topic: real[topic]["data"] for topic in six} == six
    assert 0 < real["jackpot.internal"]["data"] <= 1.0
    assert 0 < real["jackpot.events"]["data"] <= 1.0
    assert abs(sum(figures["data"] for figures in real.values()) - by_saga["real"]["data"]) < 0.1
    assert all(by_saga[name]["markers"] > 0 for name in SAGAS)  # every hop commits a transaction
    assert [hop["hop"].split(" → ")[0] for hop in figures["hops"]["null3"]][0] == "client due"
    (records,) = figures["records_per_spin_by_load"]
    assert records["spins_per_s"] == 50 and records["by_topic"]["spin.events"]["data"] == 1.0
    (written,) = figures["bytes_per_spin_by_load"]
    assert written["spins_per_s"] == 50 and written["settled"] == 200
    # A settled spin's answer alone is hundreds of bytes, kept forever; every kept-forever topic is the platform's too.
    assert written["by_topic"]["spin.events"] > 300
    assert written["platform"] > written["kept_forever"] > written["by_topic"]["spin.events"]
    assert figures["idle"]["seconds"] >= 3 and set(figures["idle"]["by_process"]) >= {"spin", "wallet", "jackpot"}
    assert figures["idle_core_percent"] == figures["idle"]["idle_core_percent"] > 0
